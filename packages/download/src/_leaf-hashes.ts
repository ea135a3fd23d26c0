/**
 * The chaining value every group (leaf) must hash to, proven from the outboard and the root:
 * the leaves' values are read out of their parents in the outboard, and the tree built from them
 * alone (BLAKE3's merges, a SIMD batch per level) must give the root; every other parent must
 * then be the one that tree holds. A group then verifies on its own, in any order, from any
 * source: its bytes hash (as the subtree at its offset) to its value, compared in constant time.
 *
 * The size in the outboard's header fixes the number of leaves, which the root proves; the final
 * leaf's length (and so the size to the byte) is proven only when the final leaf verifies.
 * @module
 */
import { blake3 } from '@blake3-web/core';
import { hashSubtrees } from '@blake3-web/core/hazmat';
import {
  CV_LEN,
  digestsEqual,
  HEADER_LEN,
  leafCount,
  outboardSubtreeLen,
  PARENT_LEN,
  preOrder,
  readLengthHeader,
  rootHash,
  treeLevels,
  writePreOrder,
} from '@blake3-web/stream/_internal';

/** The outboard does not prove the root, or is not an outboard at all. */
export class OutboardMismatch extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutboardMismatch';
  }
}

export class LeafHashes {
  /** Content bytes, as the outboard's header claims (proven once the final group verifies). */
  readonly size: number;
  readonly groupBytes: number;
  readonly groups: number;
  readonly #root: Uint8Array;
  /** 32 bytes per group; empty when the content is one group (which hashes to the root itself). */
  readonly #cvs: Uint8Array;

  private constructor(root: Uint8Array, size: number, groupBytes: number, cvs: Uint8Array) {
    this.#root = root;
    this.size = size;
    this.groupBytes = groupBytes;
    this.groups = leafCount(size, groupBytes);
    this.#cvs = cvs;
  }

  /** The content size an outboard claims, and the outboard length that size calls for. */
  static claimedSize(header: Uint8Array, groupBytes: number): { size: number; outboardBytes: number } {
    const size = readLengthHeader(header, (why) => new OutboardMismatch(`the outboard ${why}`));
    return { size, outboardBytes: HEADER_LEN + outboardSubtreeLen(size, groupBytes) };
  }

  /** Throws an OutboardMismatch unless `outboard` (header and parents, whole) proves `root`. */
  static fromOutboard(outboard: Uint8Array, root: Uint8Array, groupBytes: number): LeafHashes {
    const { size, outboardBytes } = LeafHashes.claimedSize(outboard, groupBytes);
    if (outboard.length !== outboardBytes)
      throw new OutboardMismatch(
        `the outboard claims ${size} content bytes, which needs ${outboardBytes} outboard bytes; it has ${outboard.length}`,
      );
    const count = leafCount(size, groupBytes);
    // One group hashes to the root itself, checked when it arrives; no content can be checked now.
    if (size === 0 && !digestsEqual(blake3(new Uint8Array(0)), root))
      throw new OutboardMismatch('the outboard claims the content is empty, which is not what the root is the hash of');
    if (count === 1) return new LeafHashes(root, size, groupBytes, new Uint8Array(0));
    const cvs = new Uint8Array(CV_LEN * count);
    // Pre-order: each node's value sits in the parent met last with a slot still free, the
    // left slot first. A stack of those slots gives each leaf its value as the walk meets it.
    const slots: number[] = [];
    let pos = HEADER_LEN;
    let leaf = 0;
    let first = true;
    for (const node of preOrder(size, { leafBytes: groupBytes })) {
      const slot = first ? -1 : slots.pop()!;
      first = false;
      if (node.kind === 'parent') {
        slots.push(pos + CV_LEN, pos);
        pos += PARENT_LEN;
      } else {
        cvs.set(outboard.subarray(slot, slot + CV_LEN), CV_LEN * leaf++);
      }
    }
    const levels = treeLevels(cvs, count);
    if (!digestsEqual(rootHash(levels), root))
      throw new OutboardMismatch(`the outboard of ${size} content bytes does not prove the root`);
    // The leaves' values prove the root; the other parents must be the ones they make, so that
    // an outboard kept or passed on is the true one, not merely one that worked.
    const canonical = new Uint8Array(outboard.length);
    writePreOrder(levels, count, canonical, HEADER_LEN, undefined, groupBytes);
    for (let i = HEADER_LEN; i < outboard.length; i++)
      if (canonical[i] !== outboard[i])
        throw new OutboardMismatch(`the outboard's parent at byte ${i} is not the one its leaves make`);
    return new LeafHashes(root, size, groupBytes, cvs);
  }

  /**
   * Whether `bytes` are the final group, whatever length the header claimed for it (the leaf
   * count, which the root proves, bounds it to 1..groupBytes): a header may lie about the size
   * within the final group, and an honest source must not be blamed for it.
   */
  verifyFinal(bytes: Uint8Array): boolean {
    if (bytes.length === 0 || bytes.length > this.groupBytes) return false;
    if (this.groups === 1) return digestsEqual(blake3(bytes), this.#root);
    const first = this.groups - 1;
    const got = hashSubtrees(bytes, first * this.groupBytes, this.groupBytes);
    return digestsEqual(got, this.#cvs.subarray(first * CV_LEN));
  }

  /** The same tree with the size the final group proved (see `verifyFinal`). */
  withSize(size: number): LeafHashes {
    if (leafCount(size, this.groupBytes) !== this.groups || size === 0)
      throw new RangeError(`a size of ${size} bytes is not a tree of ${this.groups} groups`);
    return new LeafHashes(this.#root, size, this.groupBytes, this.#cvs);
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
    if (this.groups === 1) return bytes.length === this.size && digestsEqual(blake3(bytes), this.#root) ? 1 : 0;
    const got = hashSubtrees(bytes, first * this.groupBytes, this.groupBytes);
    const n = got.length / CV_LEN;
    for (let i = 0; i < n; i++) {
      const at = (first + i) * CV_LEN;
      if (!digestsEqual(got.subarray(i * CV_LEN, (i + 1) * CV_LEN), this.#cvs.subarray(at, at + CV_LEN))) return i;
    }
    return n;
  }
}
