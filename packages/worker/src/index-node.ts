export { createPool, hashFile } from './node.js';
export type { Pool, PoolOpts, HashFileOpts, WorkerLike } from './pool.js';
