// The package bound to Node (the "node" export condition): worker_threads and file paths.
import { createPoolOn, type Pool, type PoolOpts } from './pool.js';
import { nodePlatform } from './platform-node.js';
import { sharedHashFile } from './hash-file.js';
import type { HashFileOpts } from './hash-job.js';

/** Creates a pool of worker_threads workers; workers start on first use. See PoolOpts. */
export function createPool(opts?: PoolOpts): Pool {
  return createPoolOn(nodePlatform, opts);
}

/**
 * The hash of a Blob, a File or a file path on a shared pool of default size, created on first
 * use. Idle workers do not keep the process alive.
 */
export const hashFile: (file: Blob | string, opts?: HashFileOpts) => Promise<Uint8Array> = sharedHashFile(createPool);
