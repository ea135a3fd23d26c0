export { createPool, type Pool, type PoolOpts, type HashFileOpts, type WorkerLike } from './pool.js';
export { hashFile } from './hash-file.js';
