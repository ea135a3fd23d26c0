// The main thread's view of the platform in Node: worker_threads, os.availableParallelism(),
// files read by path.
import { stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { FileSnapshot } from './protocol.js';
import type { WorkerLike } from './_worker-handle.js';

/**
 * Blobs are read here and their bytes transferred. Node refuses to post a file-backed Blob
 * (fs.openAsBlob) and, worse, accepts a slice of one and aborts the whole process when the
 * worker reads it (Node 20.20); an in-memory Blob cannot be told apart from such a slice.
 */
export const blobTransport: 'blob' | 'bytes' = 'bytes';

// Under a TypeScript loader (the package's own tests) this module is src/platform-node.ts and its
// worker is src/worker.ts; built, both are .js in dist.
const workerFile = import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js';

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

export function spawnDefaultWorker(): WorkerLike {
  return new Worker(new URL(workerFile, import.meta.url), { execArgv: workerExecArgv() });
}

export function reportedParallelism(): number {
  return availableParallelism();
}

export async function snapshotFile(path: string): Promise<FileSnapshot> {
  const info = await stat(path);
  if (!info.isFile()) throw new TypeError(`file must be a regular file, got ${JSON.stringify(path)} which is not`);
  return { path, size: info.size, mtimeMs: info.mtimeMs };
}

export { openFile } from './_open-file-node.js';
