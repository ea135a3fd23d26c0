// What the pool needs from the platform it runs on; platform-browser.ts and platform-node.ts
// provide it, and the package's entry points (browser.ts, node.ts) bind the pool to one.
import type { Endpoint } from 'comlink';
import type { WorkerDiedError } from './_errors.js';
import type { OpenFile } from './_range-readers.js';
import type { FileSnapshot } from './protocol.js';

/** A worker_threads Worker, structurally (the public types do not depend on Node's). */
export type NodeWorkerLike = {
  postMessage(message: unknown, transfer?: readonly unknown[]): void;
  on(type: string, listener: (...args: never[]) => void): unknown;
  off(type: string, listener: (...args: never[]) => void): unknown;
  terminate(): unknown;
  ref?(): void;
  unref?(): void;
};

/** What `createWorker` may return: a Web Worker, or a worker_threads Worker in Node. */
export type WorkerLike = Worker | NodeWorkerLike;

/** A started worker as the pool sees it, whatever the platform: the one shape every adapter gives. */
export type WorkerPort = {
  /** comlink's endpoint over the worker. */
  readonly endpoint: Endpoint;
  /**
   * Busy while calls wait for the worker. Where workers can keep a process alive (Node), a busy
   * one must (a script awaiting a hash at top level would exit before the answer came) and an
   * idle one must not.
   */
  setBusy(busy: boolean): void;
  /** Stops the worker; what it returns (Node: a promise) is awaited and its failure ignored. */
  terminate(): unknown;
};

/**
 * Adapts a worker to a WorkerPort and reports, through `onDeath`, every way the platform tells
 * that it died (an exit, an uncaught error, an answer that cannot be read). `onDeath` may be
 * called more than once; the first call counts.
 */
export type AdaptWorker = (worker: WorkerLike, onDeath: (reason: WorkerDiedError) => void) => WorkerPort;

export type Platform = {
  /**
   * 'blob': Blobs are posted to workers as they are (structured clone shares the data).
   * 'bytes': the calling thread reads each task's bytes and transfers them.
   */
  readonly blobTransport: 'blob' | 'bytes';
  /** Starts the package's own worker. */
  spawnDefaultWorker(): WorkerLike;
  /** The workers this platform runs, from `spawnDefaultWorker` or `createWorker`, in one shape. */
  adaptWorker: AdaptWorker;
  /** The parallelism the platform reports (it may count hyperthreads, or lie). */
  reportedParallelism(): number;
  /** Size and mtime of a file by path; rejects where there are no paths. */
  snapshotFile(path: string): Promise<FileSnapshot>;
  /** Opens a file for ranged reads; rejects where there are no paths. */
  openFile: OpenFile;
};
