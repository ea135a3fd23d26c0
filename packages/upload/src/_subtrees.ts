// Everything this package asks of the BLAKE3 tree, in one place: chaining values of
// chunk-aligned subtrees, their parents, and the root. Built on @blake3-web/core/hazmat, with the
// mode resolved once into a hazmat Mode (a context is hashed into its key once, not per subtree).
// Whole subtrees go to hashSubtree, one kernel call each, rather than through a subtreeHasher:
// a checkpoint needs the chunk stack at every chunk boundary, which a subtree still being fed
// cannot give.
import { blake3, CHUNK_LEN, OUT_LEN } from '@blake3-web/core';
import {
  hashSubtree,
  maxSubtreeLen,
  mergeSubtreesNonRoot,
  mergeSubtreesRoot,
  Mode,
  type SubtreeOpts,
} from '@blake3-web/core/hazmat';

export { CHUNK_LEN, type Mode };
/** A chaining value's length: BLAKE3's default output length. */
export const CV_LEN = OUT_LEN;

/** The mode of a hash: a key, a derive_key context, or neither. */
export type HashMode = SubtreeOpts;

/**
 * The length of the largest subtree that starts at `offset` (a multiple of CHUNK_LEN) and leaves
 * at least one of `available` bytes after it: a power of two chunks, or 0 when not even one
 * chunk fits. A subtree never ends the input, so its chaining value is never the root's.
 */
export function nextSubtreeLen(offset: number, available: number): number {
  if (available <= CHUNK_LEN) return 0;
  let len = CHUNK_LEN;
  while (len * 2 < available) len *= 2;
  const max = maxSubtreeLen(offset);
  return max === undefined ? len : Math.min(len, max);
}

/** The mode resolved once, for the calls below; checks key and context as blake3() does (same errors). */
export function resolveMode(mode: HashMode): Mode {
  return new Mode(mode);
}

/** The non-root chaining value of the subtree `bytes` at `offset`. */
export function subtreeCv(bytes: Uint8Array, offset: number, mode: Mode): Uint8Array {
  return hashSubtree(bytes, offset, mode);
}

export function parentCv(left: Uint8Array, right: Uint8Array, mode: Mode): Uint8Array {
  return mergeSubtreesNonRoot(left, right, mode);
}

/**
 * The root of an input made of the subtrees on `stack` (largest first, as the chunk stack keeps
 * them) followed by `tail`, the last 1..CHUNK_LEN bytes starting at `tailOffset`.
 */
export function rootOf(
  stack: readonly Uint8Array[],
  tail: Uint8Array,
  tailOffset: number,
  mode: HashMode,
  resolved: Mode,
  dkLen: number,
): Uint8Array {
  if (stack.length === 0) return blake3(tail, { ...mode, dkLen });
  let right = hashSubtree(tail, tailOffset, resolved);
  for (let i = stack.length - 1; i > 0; i--) right = mergeSubtreesNonRoot(stack[i], right, resolved);
  return mergeSubtreesRoot(stack[0], right, { ...mode, dkLen });
}

/** A short public fingerprint of a key, so that a state made under another key is refused. */
export function keyFingerprint(key: Uint8Array): Uint8Array {
  return blake3('blake3-web upload checkpoint key', { key, dkLen: 16 });
}

/** A checksum of a serialised state: a damaged state is refused, not resumed. */
export function stateChecksum(text: string): Uint8Array {
  return blake3(text, { context: 'blake3-web upload checkpoint v1', dkLen: 16 });
}
