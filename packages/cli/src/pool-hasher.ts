import { createPool, type Pool } from '@blake3-web/worker';
import type { Mode } from './hash-input.js';
import { POOL_MIN_BYTES } from './hash-input.js';

export type PoolHasher = {
  /** `length` output bytes of a large regular file hashed on worker threads, or undefined to hash it here. */
  hash(path: string, size: number, mode: Mode, length: number): Promise<Uint8Array | undefined>;
  close(): void;
};

/**
 * Large files go to a pool of `threads` workers (default: the pool's own choice from the core
 * count); `--num-threads 1` keeps everything on the main thread, where it costs no worker start-up.
 */
export function poolHasher(threads: number | undefined): PoolHasher {
  let pool: Pool | undefined;
  return {
    async hash(path, size, mode, length) {
      if (threads === 1 || size < POOL_MIN_BYTES) return undefined;
      pool ??= createPool(threads === undefined ? {} : { size: threads });
      return pool.hashFile(path, { ...mode, dkLen: length });
    },
    close: () => pool?.terminate(),
  };
}
