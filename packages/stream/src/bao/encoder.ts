import { blake3 } from '@blake3-web/core';
import { hashSubtree, mergeSubtreesNonRoot, mergeSubtreesRoot } from '@blake3-web/core/hazmat';
import { aUint8Array } from '../_assert.js';
import { resolveLeafBytes, type BaoTreeOpts } from './_options.js';
import { CV_LEN, HEADER_LEN, PARENT_LEN, writeHeader } from './tree-shape.js';

export interface BaoOutboard {
  /** The Bao hash: `blake3(content)`. */
  hash: Uint8Array;
  /** The outboard encoding: what `bao encode --outboard` writes. */
  outboard: Uint8Array;
}

/**
 * Builds the outboard encoding of content that arrives in pieces of any size, without holding
 * the content: it keeps one leaf and the 32-byte chaining value of every leaf seen (1/32 of the
 * content, 1/512 with `chunkGroupLog: 4`), and writes the pre-order outboard (1/16) at the end.
 *
 * Pre-order needs the whole tree before its first node can be written: the root parent comes
 * first and depends on every byte. The reference encoder writes post-order and flips the file in
 * place, which needs a seekable output; here the outboard is small enough to build in memory.
 * A combined encoding then streams from the content and the outboard with `baoCombine`.
 *
 * @example
 * ```ts
 * const encoder = new BaoEncoder();
 * for (const piece of pieces) encoder.update(piece);
 * const { hash, outboard } = encoder.finalize();
 * ```
 */
export class BaoEncoder {
  readonly #leafBytes: number;
  #leaf: Uint8Array;
  #leafFill = 0;
  /** Chaining values of completed leaves, 32 bytes each, in order. */
  #cvs = new Uint8Array(CV_LEN * 64);
  #leaves = 0;
  #length = 0;
  #finalized = false;

  constructor(opts?: BaoTreeOpts) {
    this.#leafBytes = resolveLeafBytes(opts);
    this.#leaf = new Uint8Array(this.#leafBytes);
  }

  /** Content bytes seen so far. */
  get length(): number {
    return this.#length;
  }

  update(data: Uint8Array): this {
    aUint8Array(data, 'data');
    if (this.#finalized) throw new TypeError('BaoEncoder.update after finalize');
    let i = 0;
    while (i < data.length) {
      // A full leaf is hashed only once a byte follows it: until then it may be the only leaf,
      // whose value is the root hash rather than a chaining value.
      if (this.#leafFill === this.#leafBytes) {
        this.#pushLeaf(this.#leaf);
        this.#leafFill = 0;
      }
      if (this.#leafFill === 0 && data.length - i > this.#leafBytes) {
        this.#pushLeaf(data.subarray(i, i + this.#leafBytes));
        i += this.#leafBytes;
        continue;
      }
      const n = Math.min(this.#leafBytes - this.#leafFill, data.length - i);
      this.#leaf.set(data.subarray(i, i + n), this.#leafFill);
      this.#leafFill += n;
      i += n;
    }
    this.#length += data.length;
    return this;
  }

  /** The hash and the outboard; the encoder cannot be updated afterwards. */
  finalize(): BaoOutboard {
    if (this.#finalized) throw new TypeError('BaoEncoder.finalize called twice');
    this.#finalized = true;
    const last = this.#leaf.subarray(0, this.#leafFill);
    if (this.#leaves === 0) {
      const outboard = new Uint8Array(HEADER_LEN);
      writeHeader(outboard, this.#length);
      return { hash: blake3(last), outboard };
    }
    this.#pushLeaf(last);
    const cvs = this.#cvs;
    const outboard = new Uint8Array(HEADER_LEN + PARENT_LEN * (this.#leaves - 1));
    writeHeader(outboard, this.#length);
    let pos = HEADER_LEN;
    // The same pre-order as encoding, over leaf indices: a left subtree holds the largest power of
    // two leaves below the count, which is BLAKE3's split rule in whole leaves.
    const build = (first: number, count: number, root: boolean): Uint8Array => {
      if (count === 1) return cvs.subarray(first * CV_LEN, (first + 1) * CV_LEN);
      const node = outboard.subarray(pos, pos + PARENT_LEN);
      pos += PARENT_LEN;
      let left = 1;
      while (left * 2 < count) left *= 2;
      node.set(build(first, left, false), 0);
      node.set(build(first + left, count - left, false), CV_LEN);
      const l = node.subarray(0, CV_LEN);
      const r = node.subarray(CV_LEN);
      return root ? mergeSubtreesRoot(l, r) : mergeSubtreesNonRoot(l, r);
    };
    const hash = build(0, this.#leaves, true);
    this.#cvs = new Uint8Array(0);
    return { hash, outboard };
  }

  #pushLeaf(leaf: Uint8Array): void {
    if ((this.#leaves + 1) * CV_LEN > this.#cvs.length) {
      const grown = new Uint8Array(this.#cvs.length * 2);
      grown.set(this.#cvs);
      this.#cvs = grown;
    }
    this.#cvs.set(hashSubtree(leaf, this.#leaves * this.#leafBytes), this.#leaves * CV_LEN);
    this.#leaves++;
  }
}
