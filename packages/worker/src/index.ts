export { createPool, hashFile } from './browser.js';
export type { Pool, PoolOpts, HashFileOpts, WorkerLike } from './pool.js';
