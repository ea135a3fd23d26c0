/**
 * How an input is cut into tasks: equal power-of-two subtrees laid end to end, the last one
 * possibly shorter. Because every subtree is a power of two chunks long and starts at a multiple
 * of its own length, each is a complete subtree of BLAKE3's tree (`hashSubtree` accepts it), and
 * the tree above them is the same shape as the tree above chunks: core's hazmat
 * `ChainingValueStack` takes them in order (merge-chaining-values.ts), a subtree in the role of a
 * chunk.
 */
import { CHUNK_LEN } from '@blake3-web/core';
import { leftSubtreeLen } from '@blake3-web/core/hazmat';

/**
 * The default largest subtree a task hashes: 16 MiB. A task costs about 0.25 ms beyond its bytes
 * (messages, open/stat/close, scheduling; docs/worker-pool.md), about 2% of a 16 MiB task and 4%
 * of an 8 MiB one; memory does not grow with it, as tasks are read in pieces (_range-readers.ts).
 * Larger subtrees would make progress, abort and the last tasks' load balance coarser.
 */
export const DEFAULT_SUBTREE_BYTES: number = 16 * 1024 * 1024;

/**
 * The smallest subtree the planner shrinks to when splitting a mid-sized input across workers.
 * Below it the per-task cost starts to show (see docs/worker-pool.md).
 */
export const MIN_SPLIT_SUBTREE_BYTES: number = 1024 * 1024;

/** Tasks each worker should get, at least, before subtrees shrink: two keep a worker busy while the next read is under way. */
const MIN_TASKS_PER_WORKER = 2;

export type SubtreePlan = {
  /** Input length in bytes. */
  readonly total: number;
  /** Length of every subtree but the last: a power of two, at least one chunk. */
  readonly subtreeBytes: number;
  /** Number of subtrees; 1 means the input is hashed whole, without merging. */
  readonly count: number;
};

export type SubtreeRange = { readonly index: number; readonly start: number; readonly end: number };

/** Whether `n` is a power of two that is at least one chunk. */
export function isSubtreeSize(n: number): boolean {
  return Number.isSafeInteger(n) && n >= CHUNK_LEN && (n & (n - 1)) === 0 && n <= 2 ** 30;
}

/**
 * Plans the subtrees of an input of `total` bytes for `workers` workers, with subtrees of at most
 * `maxSubtreeBytes`. An input too small to keep every worker busy with full subtrees gets smaller
 * ones (never below `MIN_SPLIT_SUBTREE_BYTES`, or `maxSubtreeBytes` if that is smaller), so a
 * 12 MiB file on two workers is not hashed as 8 MiB + 4 MiB. An input of one subtree or less is
 * one task that hashes the whole input.
 */
export function planSubtrees(total: number, maxSubtreeBytes: number, workers: number): SubtreePlan {
  if (!isSubtreeSize(maxSubtreeBytes))
    throw new RangeError(`maxSubtreeBytes must be a power of two from ${CHUNK_LEN} to 2^30, got ${maxSubtreeBytes}`);
  const minBytes = Math.min(MIN_SPLIT_SUBTREE_BYTES, maxSubtreeBytes);
  const wanted = Math.max(1, workers) * MIN_TASKS_PER_WORKER;
  let subtreeBytes = maxSubtreeBytes;
  if (total < maxSubtreeBytes * wanted) {
    // The largest power-of-two subtree within each task's share: BLAKE3's split of one byte more.
    const share = Math.floor(total / wanted);
    const fits = share > CHUNK_LEN ? leftSubtreeLen(share + 1) : CHUNK_LEN;
    subtreeBytes = Math.max(minBytes, Math.min(maxSubtreeBytes, fits));
  }
  const count = total <= subtreeBytes ? 1 : Math.ceil(total / subtreeBytes);
  return { total, subtreeBytes, count };
}

/** The byte range of subtree `index` of `plan`. */
export function subtreeRange(plan: SubtreePlan, index: number): SubtreeRange {
  if (plan.count === 1) return { index, start: 0, end: plan.total };
  const start = index * plan.subtreeBytes;
  return { index, start, end: Math.min(plan.total, start + plan.subtreeBytes) };
}
