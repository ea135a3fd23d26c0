import { blake3 } from '@blake3-web/core';
import { hashSubtree, mergeSubtreesNonRoot, mergeSubtreesRoot } from '@blake3-web/core/hazmat';

/**
 * The chaining value of a leaf (a chunk or an aligned group of chunks) that starts at content
 * byte `start`; for the root (content of one leaf) the BLAKE3 hash itself, which is how the Bao
 * hash equals `blake3(content)` (Bao spec, "Decoder": CVs are computed as per BLAKE3).
 */
export function leafChainingValue(leaf: Uint8Array, start: number, root: boolean): Uint8Array {
  if (root) return blake3(leaf);
  return hashSubtree(leaf, start);
}

/** The chaining value of a parent node (left CV || right CV), ROOT-finalized at the top. */
export function parentChainingValue(node: Uint8Array, root: boolean): Uint8Array {
  const left = node.subarray(0, 32);
  const right = node.subarray(32, 64);
  return root ? mergeSubtreesRoot(left, right) : mergeSubtreesNonRoot(left, right);
}
