import type { OutputReader } from '@blake3-web/core';
import type { Mode } from './hash-input.js';

export type PoolHasher = {
  /** The reader of a large regular file hashed on worker threads, or undefined to hash it here. */
  hash(path: string, size: number, mode: Mode): Promise<OutputReader | undefined>;
  close(): void;
};

/** Hashes on this thread only (used with --num-threads 1, and until a pool is wired in). */
export function poolHasher(_threads: number | undefined): PoolHasher {
  return { hash: async () => undefined, close() {} };
}
