// The main thread's view of the platform in browsers (and any runtime package.json's "node"
// condition does not select): Web Workers, navigator.hardwareConcurrency, no file paths.
import type { FileSnapshot } from './protocol.js';
import type { WorkerLike } from './_worker-handle.js';

/** Blobs go to workers as they are: structured clone shares the data and copies nothing. */
export const blobTransport: 'blob' | 'bytes' = 'blob';

/** The package's own worker, next to this module. Apps that bundle should pass createWorker. */
export function spawnDefaultWorker(): WorkerLike {
  return new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
}

export function reportedParallelism(): number {
  const n = typeof navigator === 'undefined' ? undefined : navigator.hardwareConcurrency;
  return typeof n === 'number' && n >= 1 ? n : 1;
}

export async function snapshotFile(path: string): Promise<FileSnapshot> {
  throw new TypeError(`file must be a Blob here: paths (got ${JSON.stringify(path)}) are read only in Node`);
}

export { openFile } from './worker-platform-browser.js';
