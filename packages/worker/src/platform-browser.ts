// The platform in browsers (and any runtime without the "node" export condition): Web Workers,
// navigator.hardwareConcurrency, no file paths.
import type { OpenFile } from './_hash-range.js';
import type { Platform } from './_platform.js';

export const openFileUnsupported: OpenFile = async (file) => {
  throw new TypeError(`file paths are read only in Node, got ${JSON.stringify(file.path)}`);
};

export const browserPlatform: Platform = {
  blobTransport: 'blob',
  // The self-contained build of ./worker.js: it loads with no bundler and no import map (module
  // workers do not see the page's import map), and bundlers that follow new URL() take it as is.
  spawnDefaultWorker: () => new Worker(new URL('./worker.bundle.js', import.meta.url), { type: 'module' }),
  reportedParallelism() {
    const n = typeof navigator === 'undefined' ? undefined : navigator.hardwareConcurrency;
    return typeof n === 'number' && n >= 1 ? n : 1;
  },
  async snapshotFile(path) {
    throw new TypeError(`file must be a Blob here: paths (got ${JSON.stringify(path)}) are read only in Node`);
  },
  openFile: openFileUnsupported,
  nodeWorkerEndpoint() {
    throw new TypeError('createWorker must return a Web Worker here');
  },
};
