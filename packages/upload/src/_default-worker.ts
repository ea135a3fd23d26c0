// The package's hashing worker, the self-contained dist/hash-worker.bundle.js (module workers do
// not see a page's import map), started the one way bundlers recognise: a literal path and
// import.meta.url inside new Worker(). Elsewhere callers pass their own createWorker.
import type { HasherEndpoint } from './worker-hasher.js';

export function startHashWorker(): HasherEndpoint {
  if (typeof Worker === 'undefined')
    throw new TypeError('there is no Worker here: pass opts.createWorker (e.g. a MessagePort served by serveHasher)');
  return new Worker(new URL('./hash-worker.bundle.js', import.meta.url), {
    type: 'module',
  }) as unknown as HasherEndpoint;
}
