// The platform in browsers (and any runtime without the "node" export condition): Web Workers,
// navigator.hardwareConcurrency, no file paths.
import { DefaultWorker } from './_default-worker-browser.js';
import { openFileUnsupported } from './_open-file-browser.js';
import type { Platform } from './_platform.js';
import { hasWorkerEvents, webWorkerPort } from './_web-worker-port.js';

export const browserPlatform: Platform = {
  blobTransport: 'blob',
  // The self-contained build of ./worker.js (module workers do not see the page's import map),
  // from its file or, where a bundler left no file, from its source.
  // DefaultWorker has every part of a Worker that the pool and comlink use.
  spawnDefaultWorker: () => new DefaultWorker() as unknown as Worker,
  adaptWorker(worker, onDeath) {
    if (!hasWorkerEvents(worker)) throw new TypeError('createWorker must return a Web Worker here');
    return webWorkerPort(worker, onDeath);
  },
  reportedParallelism() {
    const n = typeof navigator === 'undefined' ? undefined : navigator.hardwareConcurrency;
    return typeof n === 'number' && n >= 1 ? n : 1;
  },
  async snapshotFile(path) {
    throw new TypeError(`file must be a Blob here: paths (got ${JSON.stringify(path)}) are read only in Node`);
  },
  openFile: openFileUnsupported,
};
