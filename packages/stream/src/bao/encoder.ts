import { blake3 } from '@blake3-web/core';
import { hashSubtrees } from '@blake3-web/core/hazmat';
import { aUint8Array } from '../_assert.js';
import { resolveLeafBytes, type BaoTreeOpts } from './_options.js';
import { rootHash, treeLevels, writePreOrder } from './_tree-levels.js';
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
    // The engine's view of the bytes: the input's own subarray or getters never decide what is encoded.
    data = aUint8Array(data, 'data');
    if (this.#finalized) throw new TypeError('BaoEncoder.update after finalize');
    const leafBytes = this.#leafBytes;
    let i = 0;
    while (i < data.length) {
      // A full leaf is hashed only once a byte follows it: until then it may be the only leaf,
      // whose value is the root hash rather than a chaining value.
      if (this.#leafFill === leafBytes) {
        this.#pushLeaves(this.#leaf, 1);
        this.#leafFill = 0;
      }
      if (this.#leafFill === 0) {
        // Every whole leaf that more bytes follow, straight from the input, in one pass.
        const whole = Math.floor((data.length - i - 1) / leafBytes);
        if (whole > 0) this.#pushLeaves(data.subarray(i, (i += whole * leafBytes)), whole);
      }
      const n = Math.min(leafBytes - this.#leafFill, data.length - i);
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
    this.#pushLeaves(last, 1);
    const count = this.#leaves;
    const outboard = new Uint8Array(HEADER_LEN + PARENT_LEN * (count - 1));
    writeHeader(outboard, this.#length);
    const levels = treeLevels(this.#cvs.subarray(0, CV_LEN * count), count);
    writePreOrder(levels, count, outboard, HEADER_LEN, undefined, this.#leafBytes);
    this.#cvs = new Uint8Array(0);
    return { hash: rootHash(levels), outboard };
  }

  /** Hashes `n` consecutive leaves (the last may be shorter) and appends their chaining values. */
  #pushLeaves(leaves: Uint8Array, n: number): void {
    const need = (this.#leaves + n) * CV_LEN;
    if (need > this.#cvs.length) {
      let size = this.#cvs.length * 2;
      while (size < need) size *= 2;
      const grown = new Uint8Array(size);
      grown.set(this.#cvs);
      this.#cvs = grown;
    }
    this.#cvs.set(hashSubtrees(leaves, this.#leaves * this.#leafBytes, this.#leafBytes), this.#leaves * CV_LEN);
    this.#leaves += n;
  }
}
