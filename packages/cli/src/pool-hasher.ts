import { createPool, type Pool } from '@blake3-web/worker';
import { availableParallelism } from 'node:os';
import type { Blake3Opts } from '@blake3-web/core';
import { POOL_MIN_BYTES } from './hash-input.js';

/** Output longer than this is streamed from a reader on this thread rather than returned whole by the pool. */
const POOL_MAX_OUTPUT = 64 << 10;

export type PoolHasher = {
  /** `length` output bytes of a large regular file hashed on worker threads, or undefined to hash it here. */
  hash(path: string, size: number, mode: Blake3Opts, length: number): Promise<Uint8Array | undefined>;
  close(): void;
};

/**
 * Large files go to a pool of `threads` workers (default, or 0: the pool's own choice from the
 * core count); `--num-threads 1` keeps everything on the main thread, where it costs no worker
 * start-up. More workers than cores cannot run at once, so larger counts (b3sum accepts any
 * number of threads) are clamped to the core count.
 */
export function poolHasher(threads: bigint | undefined): PoolHasher {
  const size =
    threads === undefined || threads === 0n
      ? undefined
      : Number(threads < BigInt(availableParallelism()) ? threads : availableParallelism());
  let pool: Pool | undefined;
  return {
    async hash(path, bytes, mode, length) {
      if (threads === 1n || bytes < POOL_MIN_BYTES || length > POOL_MAX_OUTPUT) return undefined;
      pool ??= createPool(size === undefined ? {} : { size });
      return pool.hashFile(path, { ...mode, dkLen: length });
    },
    close: () => pool?.terminate(),
  };
}
