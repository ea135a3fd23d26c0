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
 * Writes the tree's parents in pre-order into `out` from `pos`, with the leaves of `content`
 * where they go for a combined encoding (none for an outboard). Returns the position after the
 * tree. Leaf indices stay below 2^31: `levels[0]` alone would need 64 GiB beyond that.
 */
export function writePreOrder(
  levels: Uint8Array[],
  count: number,
  out: Uint8Array,
  pos: number,
  content: Uint8Array | undefined,
  leafBytes: number,
): number {
  // Chaining values are copied a word at a time: parents lie at multiples of 4 bytes in every
  // encoding (after the 8-byte header, 64-byte parents and whole leaves; only the last leaf is
  // shorter), so `out` is viewed as words when it starts at one.
  const outWords = out.byteOffset % 4 === 0 && pos % 4 === 0 ? wordView(out) : undefined;
  const levelWords = levels.map(wordView);
  /** Copies `n` words from word `i` of `level` to `out` at the current position. */
  const copy = (level: number, i: number, n: number): void => {
    if (outWords) {
      const from = levelWords[level];
      const o = pos >> 2;
      for (let j = 0; j < n; j++) outWords[o + j] = from[i + j];
    } else {
      out.set(levels[level].subarray(4 * i, 4 * (i + n)), pos);
    }
    pos += 4 * n;
  };
  const leaves = (first: number, n: number): void => {
    if (!content) return;
    // The two leaves under a parent lie side by side: one copy.
    const run = content.subarray(first * leafBytes, (first + n) * leafBytes);
    out.set(run, pos);
    pos += run.length;
  };
  /**
   * The subtree of 2^k leaves (k >= 1) from leaf `first`: its children are neighbours on level
   * k - 1, so its parent node is one run of 64 bytes there.
   */
  const full = (first: number, k: number): void => {
    copy(k - 1, (first >> (k - 1)) * 8, 16);
    if (k === 1) return leaves(first, 2);
    full(first, k - 1);
    full(first + 2 ** (k - 1), k - 1);
  };
  const walk = (first: number, n: number): void => {
    if (n === 1) return leaves(first, 1);
    // The left subtree: the largest power of two leaves below n, its value on level log2(left).
    const leftLevel = 31 - Math.clz32(n - 1);
    const left = 2 ** leftLevel;
    if (left === n / 2) return full(first, leftLevel + 1);
    copy(leftLevel, (first >> leftLevel) * 8, 8);
    // The right subtree's value is on level ceil(log2(n - left)), where an odd value moved up to.
    const rightLevel = n - left === 1 ? 0 : 32 - Math.clz32(n - left - 1);
    copy(rightLevel, ((first + left) >> rightLevel) * 8, 8);
    full(first, leftLevel);
    walk(first + left, n - left);
  };
  walk(0, count);
  return pos;
}

/** The bytes as words (a copy when they do not start at a multiple of 4); byte order does not matter for copies. */
function wordView(bytes: Uint8Array): Uint32Array {
  const own = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  return new Uint32Array(own.buffer, own.byteOffset, own.length >> 2);
}
