import { mergeManySubtreesNonRoot, mergeSubtreesRoot } from '@blake3-web/core/hazmat';
import { CV_LEN, PARENT_LEN } from './tree-shape.js';

/**
 * The chaining values of every node of the tree over `count` (>= 2) leaves, level by level:
 * `levels[0]` is the leaves', `levels[k]` those of the aligned subtrees of 2^k leaves. Adjacent
 * values pair up left to right, one SIMD batch of parents per level, and an odd last value moves
 * up as it is, which gives BLAKE3's tree (its left subtrees are complete). The top level holds
 * the root's two children.
 */
export function treeLevels(leafCvs: Uint8Array, count: number): Uint8Array[] {
  const levels = [leafCvs];
  for (let n = count; n > 2; n = (n + 1) >> 1) {
    const below = levels[levels.length - 1];
    const pairs = n >> 1;
    const level = new Uint8Array(CV_LEN * ((n + 1) >> 1));
    // Each pair of neighbours is a 64-byte parent node already.
    level.set(mergeManySubtreesNonRoot(below.subarray(0, PARENT_LEN * pairs)));
    if (n & 1) level.set(below.subarray(PARENT_LEN * pairs, PARENT_LEN * pairs + CV_LEN), CV_LEN * pairs);
    levels.push(level);
  }
  return levels;
}

/** The Bao hash: the root node over the top level's two values. */
export function rootHash(levels: Uint8Array[]): Uint8Array {
  const top = levels[levels.length - 1];
  return mergeSubtreesRoot(top.subarray(0, CV_LEN), top.subarray(CV_LEN, 2 * CV_LEN));
}

/**
 * Writes the tree's parents in pre-order into `out` from `pos`, calling `leaf(index)` where each
 * leaf comes (a combined encoding writes its content there). Returns the position after the tree.
 */
export function writePreOrder(
  levels: Uint8Array[],
  count: number,
  out: Uint8Array,
  pos: number,
  leaf: (index: number, pos: number) => number,
): number {
  /** The value of the subtree of `n` leaves from leaf `first`: at level ceil(log2 n). */
  const value = (first: number, n: number): Uint8Array => {
    let k = 0;
    while (1 << k < n) k++;
    const i = first >> k;
    return levels[k].subarray(CV_LEN * i, CV_LEN * (i + 1));
  };
  const walk = (first: number, n: number): void => {
    if (n === 1) {
      pos = leaf(first, pos);
      return;
    }
    let left = 1;
    while (left * 2 < n) left *= 2;
    out.set(value(first, left), pos);
    out.set(value(first + left, n - left), pos + CV_LEN);
    pos += PARENT_LEN;
    walk(first, left);
    walk(first + left, n - left);
  };
  walk(0, count);
  return pos;
}
