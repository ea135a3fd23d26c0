// hashFile: the one-call API, on a pool created on first use and shared by every caller.
import type { HashFileOpts, Pool, PoolOpts } from './pool.js';

/** hashFile over a lazily created shared pool. */
export function sharedHashFile(
  createPool: (opts?: PoolOpts) => Pool,
): (file: Blob | string, opts?: HashFileOpts) => Promise<Uint8Array> {
  let shared: Pool | undefined;
  return (file, opts) => (shared ??= createPool()).hashFile(file, opts);
}
