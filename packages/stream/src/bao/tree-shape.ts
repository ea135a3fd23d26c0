/**
 * The shape of a Bao tree, which is BLAKE3's tree: every size and position here follows from the
 * content length alone (Bao spec, "Combined Encoding Format"). Nothing in this module hashes.
 * @module
 */
import { BLOCK_LEN, CHUNK_LEN, OUT_LEN } from '@blake3-web/core';
import { leftSubtreeLen } from '@blake3-web/core/hazmat';

/** Bytes in a BLAKE3 chunk, the leaf of the tree when `chunkGroupLog` is 0. */
export { CHUNK_LEN };
/** The little-endian u64 content length that starts every encoding and slice. */
export const HEADER_LEN = 8;
/** A parent node: the left child's chaining value, then the right child's. */
export const PARENT_LEN: number = BLOCK_LEN;
/** Chaining values and Bao hashes. */
export const CV_LEN: number = OUT_LEN;

/** Bytes in one leaf: a chunk, or a group of 2^chunkGroupLog chunks. */
export function leafLen(chunkGroupLog: number): number {
  return CHUNK_LEN * 2 ** chunkGroupLog;
}

/** Leaves in content of `contentLen` bytes: the empty content is one empty leaf. */
export function leafCount(contentLen: number, leafBytes: number): number {
  return contentLen === 0 ? 1 : Math.ceil(contentLen / leafBytes);
}

/** Bytes of the combined encoding of a subtree of `len` bytes: its parents and its content. */
export function encodedSubtreeLen(len: number, leafBytes: number): number {
  return len + PARENT_LEN * (leafCount(len, leafBytes) - 1);
}

/** Bytes of the outboard encoding of a subtree of `len` bytes: its parents only. */
export function outboardSubtreeLen(len: number, leafBytes: number): number {
  return PARENT_LEN * (leafCount(len, leafBytes) - 1);
}

/** Writes the length header (Bao spec: "8-byte little-endian unsigned input length"). */
export function writeHeader(out: Uint8Array, contentLen: number): void {
  new DataView(out.buffer, out.byteOffset, HEADER_LEN).setBigUint64(0, BigInt(contentLen), true);
}

/**
 * The content length that starts an encoding (or an outboard, or a slice). The header is
 * unverified and may say anything up to 2^64 - 1; no real content is longer than 2^53 - 1 bytes,
 * so a longer claim is refused, as is an encoding too short to hold a header: `fail` turns what
 * is wrong into the caller's error (a RangeError for an argument, an IntegrityError for bytes
 * that arrived).
 */
export function readLengthHeader(encoding: Uint8Array, fail: (why: string) => Error): number {
  if (encoding.length < HEADER_LEN)
    throw fail(`has ${encoding.length} bytes, less than its ${HEADER_LEN}-byte length header`);
  const claimed = new DataView(encoding.buffer, encoding.byteOffset, HEADER_LEN).getBigUint64(0, true);
  if (claimed > BigInt(Number.MAX_SAFE_INTEGER))
    throw fail(`has a length header that claims ${claimed} bytes, more than 2^53 - 1`);
  return Number(claimed);
}

/**
 * The content range whose leaves a slice holds, from the requested start and count (Bao spec,
 * "Slice Format"): a start at or past the end means the final chunk, which is what proves the
 * length, and a count of 0 counts as 1, so that a slice always checks some chunk.
 */
export function sliceRange(contentLen: number, start: number, count: number): { start: number; end: number } {
  if (contentLen === 0) return { start: 0, end: 0 };
  if (start >= contentLen) return { start: contentLen - 1, end: contentLen };
  return { start, end: Math.min(contentLen, start + Math.max(count, 1)) };
}

/**
 * Whether a slice of [rangeStart, rangeEnd) needs the subtree of content [start, start + len):
 * it does when they overlap. The empty content's one leaf is always needed: it is what proves
 * the length is 0.
 */
export function wantedSubtree(
  contentLen: number,
  start: number,
  len: number,
  rangeStart: number,
  rangeEnd: number,
): boolean {
  return contentLen === 0 || (start < rangeEnd && start + len > rangeStart);
}

/** One step of a pre-order walk; `start` and `len` are content bytes. */
export type TreeNode =
  /** A parent node of the subtree [start, start + len): 64 bytes in the encoding. */
  | { kind: 'parent'; start: number; len: number; root: boolean }
  /** A leaf (chunk or chunk group) of `len` bytes, 0 only for the empty content. */
  | { kind: 'leaf'; start: number; len: number; root: boolean }
  /** A subtree outside the wanted range: slices omit it. */
  | { kind: 'skip'; start: number; len: number; root: boolean };

export interface WalkOpts {
  leafBytes: number;
  /** Content range whose leaves are wanted; subtrees that miss it become 'skip'. Default: all. */
  rangeStart?: number;
  rangeEnd?: number;
}

/**
 * The nodes of the tree of `contentLen` bytes in pre-order (parent, left subtree, right
 * subtree), the order of the combined encoding. A range turns every subtree that holds none of
 * its bytes into one 'skip', which is how `bao slice` leaves nodes out (Bao spec, "Slice Format").
 */
export function* preOrder(contentLen: number, opts: WalkOpts): Generator<TreeNode, void, undefined> {
  const { leafBytes, rangeStart = 0, rangeEnd = Infinity } = opts;
  const starts = [0];
  const lens = [contentLen];
  let root = true;
  while (starts.length > 0) {
    const start = starts.pop()!;
    const len = lens.pop()!;
    if (!wantedSubtree(contentLen, start, len, rangeStart, rangeEnd)) yield { kind: 'skip', start, len, root };
    else if (len <= leafBytes) yield { kind: 'leaf', start, len, root };
    else {
      yield { kind: 'parent', start, len, root };
      const left = leftSubtreeLen(len);
      starts.push(start + left, start);
      lens.push(len - left, left);
    }
    root = false;
  }
}

/**
 * Visits the nodes of a subtree of `len` bytes in pre-order without building them: how a
 * combined encoding interleaves a subtree's parents with its leaves. A subtree's shape depends
 * only on its length: it is aligned, so the split rule applies to it as to a whole tree.
 */
export function visitSubtree(len: number, leafBytes: number, parent: () => void, leaf: (len: number) => void): void {
  if (len <= leafBytes) return leaf(len);
  parent();
  const left = leftSubtreeLen(len);
  visitSubtree(left, leafBytes, parent, leaf);
  visitSubtree(len - left, leafBytes, parent, leaf);
}
