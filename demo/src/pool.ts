// One worker pool for the page, started on first use. Vite bundles the pool's worker script
// itself, so the pool is told how to start it.
import { createPool, type Pool } from '@blake3-web/worker';
import PoolWorker from '@blake3-web/worker/worker?worker';

let shared: Pool | undefined;

export function pagePool(): Pool {
  shared ??= createPool({ createWorker: () => new PoolWorker() });
  return shared;
}

/** A pool of exactly `size` workers, for measurements that compare pool sizes. */
export function sizedPool(size: number): Pool {
  return createPool({ size, createWorker: () => new PoolWorker() });
}

/** The pool's default size: the reported core count, at most 4 (what createPool picks). */
export function defaultPoolSize(): number {
  return Math.min(Math.max(navigator.hardwareConcurrency || 1, 1), 4);
}
