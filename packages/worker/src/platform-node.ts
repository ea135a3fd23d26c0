// The platform in Node: worker_threads through comlink's node adapter, os.availableParallelism(),
// files read by path.
import { stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { nodeWorkerPort } from './_node-worker-port.js';
import { fileSnapshot, openFile } from './_open-file-node.js';
import type { NodeWorkerLike, Platform } from './_platform.js';
import { hasWorkerEvents, webWorkerPort } from './_web-worker-port.js';

// Under a TypeScript runtime that runs the sources (Bun, Deno) this module is platform-node.ts
// and its worker worker-node.ts; built, both are .js in dist.
const workerFile = import.meta.url.endsWith('.ts') ? './worker-node.ts' : './worker-node.js';

/**
 * The parent's Node options minus --input-type, which Node rejects in a worker started from a
 * file ("can only be used with string input"): a script run as `node --input-type=module -e`
 * would otherwise get workers that die on start.
 */
function workerExecArgv(): string[] {
  const out: string[] = [];
  for (let i = 0; i < process.execArgv.length; i++) {
    const arg = process.execArgv[i];
    if (arg === '--input-type') i++;
    else if (!arg.startsWith('--input-type=')) out.push(arg);
  }
  return out;
}

export const nodePlatform: Platform = {
  /**
   * Blobs are read on the calling thread and their bytes transferred. Node refuses to post a
   * file-backed Blob (fs.openAsBlob) and, worse, accepts a slice of one and aborts the whole
   * process when the worker reads it (Node 20.20); an in-memory Blob cannot be told apart from
   * such a slice.
   */
  blobTransport: 'bytes',
  spawnDefaultWorker: () => new Worker(new URL(workerFile, import.meta.url), { execArgv: workerExecArgv() }),
  // createWorker may also give a Web Worker where the runtime has them (Deno, Bun).
  adaptWorker: (worker, onDeath) =>
    hasWorkerEvents(worker) ? webWorkerPort(worker, onDeath) : nodeWorkerPort(worker as NodeWorkerLike, onDeath),
  reportedParallelism: () => availableParallelism(),
  async snapshotFile(path) {
    const info = await stat(path, { bigint: true });
    if (!info.isFile()) throw new TypeError(`file must be a regular file, got ${JSON.stringify(path)} which is not`);
    return fileSnapshot(path, info);
  },
  openFile,
};
