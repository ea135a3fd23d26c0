// The pool's own worker in browsers, started so that it comes up whatever bundled the page: its
// file, else a blob: URL of its source (./worker-source.js, loaded only then), else a
// WorkerStartError naming the fixes (see ./_start-worker.ts).
import { StartingWorker, WorkerStartup } from './_start-worker.js';
import { WORKER_READY } from './protocol.js';

const poolWorker = /* @__PURE__ */ new WorkerStartup({
  name: "the pool's worker",
  pkg: '@blake3-web/worker',
  file: './worker.bundle.js',
  base: import.meta.url,
  fromFile: () => new Worker(new URL('./worker.bundle.js', import.meta.url), { type: 'module' }),
  source: () => import('./worker-source.js').then((m) => m.default),
  ready: WORKER_READY,
});

/** A Worker, as the pool and comlink use one, that starts the pool's worker by the first way that works. */
export class DefaultWorker extends StartingWorker {
  constructor() {
    super(poolWorker);
  }
}
