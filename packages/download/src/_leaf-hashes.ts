/**
 * The chaining value every group (leaf) must hash to, from an outboard proven whole against the
 * root when it arrives (`proveOutboard`): a group then verifies on its own, in any order, from
 * any source: its bytes hash (as the subtree at its offset) to its value, compared in constant
 * time, and a group that does not is the source's fault, never the outboard's.
 *
 * The size in the outboard's header fixes the number of leaves, which the root proves; the final
 * leaf's length (and so the size to the byte) is proven only when the final leaf verifies.
 * @module
 */
import { blake3, constantTimeEqual } from '@blake3-web/core';
import { hashSubtrees } from '@blake3-web/core/hazmat';
import {
  CV_LEN,
  HEADER_LEN,
  leafCount,
  outboardSubtreeLen,
  proveOutboard,
  provesFinalLeaf,
  readLengthHeader,
  type ProvenTree,
} from '@blake3-web/stream/_internal';

/** The outboard does not prove the root, or is not an outboard at all. */
export class OutboardMismatch extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutboardMismatch';
  }
}

const mismatch = (why: string) => new OutboardMismatch(`the outboard ${why}`);

export class LeafHashes {
  /** Content bytes, as the outboard's header claims (proven once the final group verifies). */
  readonly size: number;
  readonly groupBytes: number;
  readonly groups: number;
  readonly #tree: ProvenTree;
  readonly #root: Uint8Array;
  /** 32 bytes per group; empty when the content is one group (which hashes to the root itself). */
  readonly #cvs: Uint8Array;

  private constructor(tree: ProvenTree, size: number) {
    this.#tree = tree;
    this.#root = tree.root;
    this.size = size;
    this.groupBytes = tree.leafBytes;
    this.groups = tree.leaves;
    this.#cvs = tree.leafCvs;
  }

  /** The content size an outboard claims, and the outboard length that size calls for. */
  static claimedSize(header: Uint8Array, groupBytes: number): { size: number; outboardBytes: number } {
    const size = readLengthHeader(header, mismatch);
    return { size, outboardBytes: HEADER_LEN + outboardSubtreeLen(size, groupBytes) };
  }

  /** Throws an OutboardMismatch unless `outboard` (header and parents, whole) proves `root`. */
  static fromOutboard(outboard: Uint8Array, root: Uint8Array, groupBytes: number): LeafHashes {
    const tree = proveOutboard(outboard, root, groupBytes, mismatch);
    return new LeafHashes(tree, tree.size);
  }

  /**
   * Whether `bytes` are the final group, whatever length the header claimed for it (the leaf
   * count, which the root proves, bounds it to 1..groupBytes): a header may lie about the size
   * within the final group, and an honest source must not be blamed for it.
   */
  verifyFinal(bytes: Uint8Array): boolean {
    return bytes.length > 0 && provesFinalLeaf(this.#tree, bytes);
  }

  /** The same tree with the size the final group proved (see `verifyFinal`). */
  withSize(size: number): LeafHashes {
    if (leafCount(size, this.groupBytes) !== this.groups || size === 0)
      throw new RangeError(`a size of ${size} bytes is not a tree of ${this.groups} groups`);
    return new LeafHashes(this.#tree, size);
  }

  /** Content bytes [start, end) of group `index`. */
  groupBounds(index: number): { start: number; end: number } {
    const start = index * this.groupBytes;
    return { start, end: Math.min(this.size, start + this.groupBytes) };
  }

  /**
   * How many of the groups in `bytes`, which start with group `first`, verify: counted from the
   * first, stopping at the first that does not. `bytes` holds whole groups (the final group as
   * long as it is).
   */
  verify(first: number, bytes: Uint8Array): number {
    if (bytes.length === 0 && !(this.size === 0 && first === 0)) return 0;
    if (this.groups === 1) return bytes.length === this.size && constantTimeEqual(blake3(bytes), this.#root) ? 1 : 0;
    const got = hashSubtrees(bytes, first * this.groupBytes, this.groupBytes);
    const n = got.length / CV_LEN;
    for (let i = 0; i < n; i++) {
      const at = (first + i) * CV_LEN;
      if (!constantTimeEqual(got.subarray(i * CV_LEN, (i + 1) * CV_LEN), this.#cvs.subarray(at, at + CV_LEN))) return i;
    }
    return n;
  }
}
