// hashFile: the one-call API, on a pool created on first use and shared by every caller.
import { createPool, type HashFileOpts, type Pool } from './pool.js';

let shared: Pool | undefined;

/**
 * The BLAKE3 hash of a Blob or File, or in Node of a file path, hashed in parallel on a shared
 * pool of default size. Idle workers do not keep a Node process alive.
 */
export function hashFile(file: Blob | string, opts?: HashFileOpts): Promise<Uint8Array> {
  return (shared ??= createPool()).hashFile(file, opts);
}
