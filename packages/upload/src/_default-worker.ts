// The package's hashing worker in browsers, started so that it comes up whatever bundled the
// page, as the pool's worker does (@blake3-web/worker): the self-contained
// ./hash-worker.bundle.js (module workers do not see a page's import map), else a blob: URL of
// its source (./hash-worker-source.js, loaded only then), else a WorkerStartError naming the fixes.
import { StartingWorker, WorkerStartup } from '@blake3-web/worker/_internal';
import { HASHER_READY } from './_hasher-protocol.js';
import type { HasherEndpoint } from './worker-hasher.js';

const hashWorker = /* @__PURE__ */ new WorkerStartup({
  name: "the upload's hashing worker",
  pkg: '@blake3-web/upload',
  file: './hash-worker.bundle.js',
  base: import.meta.url,
  fromFile: () => new Worker(new URL('./hash-worker.bundle.js', import.meta.url), { type: 'module' }),
  source: () => import('./hash-worker-source.js').then((m) => m.default),
  ready: HASHER_READY,
});

/** The package's hashing worker, for `WorkerHasher.open` (the default `createWorker` of `blake3Tus`). */
export function startHashWorker(): HasherEndpoint {
  if (typeof Worker === 'undefined')
    throw new TypeError('there is no Worker here: pass opts.createWorker (e.g. a MessagePort served by serveHasher)');
  return new StartingWorker(hashWorker) as unknown as HasherEndpoint;
}
