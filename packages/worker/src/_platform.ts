// What the pool needs from the platform it runs on; platform-browser.ts and platform-node.ts
// provide it, and the package's entry points (browser.ts, node.ts) bind the pool to one.
import type { Endpoint } from 'comlink';
import type { OpenFile } from './_hash-range.js';
import type { NodeWorkerLike, WorkerLike } from './_worker-handle.js';
import type { FileSnapshot } from './protocol.js';

export type Platform = {
  /**
   * 'blob': Blobs are posted to workers as they are (structured clone shares the data).
   * 'bytes': the calling thread reads each task's bytes and transfers them.
   */
  readonly blobTransport: 'blob' | 'bytes';
  /** Starts the package's own worker. */
  spawnDefaultWorker(): WorkerLike;
  /** The parallelism the platform reports (it may count hyperthreads, or lie). */
  reportedParallelism(): number;
  /** Size and mtime of a file by path; rejects where there are no paths. */
  snapshotFile(path: string): Promise<FileSnapshot>;
  /** Opens a file for ranged reads; rejects where there are no paths. */
  openFile: OpenFile;
  /** comlink's endpoint over a worker_threads Worker; throws where there are none. */
  nodeWorkerEndpoint(worker: NodeWorkerLike): Endpoint;
};
