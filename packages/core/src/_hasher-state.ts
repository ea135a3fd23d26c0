import { compress } from './_compress.js';
import { BLOCK_LEN, CHUNK_END, CHUNK_LEN, CHUNK_START, MAX_DEPTH, PARENT } from './_constants.js';
import { LITTLE_ENDIAN, swapWords } from './_bytes.js';
import type { Output } from './_output.js';

const TWO_POW_32 = 0x100000000;

/**
 * The incremental BLAKE3 state of the reference implementation (`ChunkState` plus the CV stack),
 * laid out in typed arrays so that hashing allocates nothing per block or per chunk.
 *
 * The last block seen is always kept buffered, and so is the last chunk: either may turn out to
 * be the final one, which is compressed with different flags.
 */
export class HasherState {
  /** Key words: the IV, the key, or the derive_key context key. */
  readonly key = new Uint32Array(8);
  flags = 0;
  /** Chaining value of the chunk in progress. */
  readonly chunkCv = new Uint32Array(8);
  /** The buffered block, zero-padded when the state is finalized. */
  readonly block = new Uint32Array(16);
  readonly block8 = new Uint8Array(this.block.buffer);
  blockLen = 0;
  blocksCompressed = 0;
  /** Index of the chunk in progress; can exceed 2^32 (it is kept exact up to 2^53). */
  chunkCounter = 0;
  /** Where the subtree starts, in chunks (non-zero only through the hazmat API). */
  initialChunkCounter = 0;
  readonly cvStack = new Uint32Array(MAX_DEPTH * 8);
  cvStackLen = 0;
  /** Holds whole chunks copied from inputs that are not 4-byte aligned (or on big-endian hosts). */
  #scratch: Uint32Array | undefined;

  init(key: Uint32Array, flags: number, initialChunkCounter = 0): this {
    this.key.set(key);
    this.flags = flags;
    this.initialChunkCounter = initialChunkCounter;
    return this.reset();
  }

  reset(): this {
    this.chunkCv.set(this.key);
    this.blockLen = 0;
    this.blocksCompressed = 0;
    this.chunkCounter = this.initialChunkCounter;
    this.cvStackLen = 0;
    return this;
  }

  copyFrom(s: HasherState): this {
    this.key.set(s.key);
    this.flags = s.flags;
    this.chunkCv.set(s.chunkCv);
    this.block.set(s.block);
    this.blockLen = s.blockLen;
    this.blocksCompressed = s.blocksCompressed;
    this.chunkCounter = s.chunkCounter;
    this.initialChunkCounter = s.initialChunkCounter;
    this.cvStack.set(s.cvStack.subarray(0, s.cvStackLen * 8));
    this.cvStackLen = s.cvStackLen;
    return this;
  }

  /** Bytes hashed since the start (of the subtree, for hazmat states). */
  get length(): number {
    return (this.chunkCounter - this.initialChunkCounter) * CHUNK_LEN + this.blocksCompressed * BLOCK_LEN + this.blockLen;
  }

  update(input: Uint8Array): void {
    const len = input.length;
    let pos = 0;
    while (pos < len) {
      // More input follows, so a full chunk in progress is not the last one: finish it.
      if (this.blocksCompressed === 15 && this.blockLen === BLOCK_LEN) {
        this.#compressBlock(this.block, 0, CHUNK_END);
        this.#pushChunkCv(this.chunkCv, 0);
      }
      if (this.blocksCompressed === 0 && this.blockLen === 0 && len - pos > CHUNK_LEN) {
        // Whole chunks straight from the input, always leaving at least one byte for the end.
        pos = this.#hashChunks(input, pos, Math.floor((len - pos - 1) / CHUNK_LEN));
        continue;
      }
      if (this.blockLen === BLOCK_LEN) {
        this.#compressBlock(this.block, 0, 0);
        this.blockLen = 0;
      }
      if (this.blockLen === 0 && LITTLE_ENDIAN && ((input.byteOffset + pos) & 3) === 0) {
        // Whole blocks of this chunk straight from the input, keeping the last block buffered.
        const blocks = Math.min(Math.floor((len - pos - 1) / BLOCK_LEN), 15 - this.blocksCompressed);
        if (blocks > 0) {
          const words = new Uint32Array(input.buffer, input.byteOffset + pos, blocks * 16);
          for (let b = 0; b < blocks; b++) this.#compressBlock(words, b * 16, 0);
          pos += blocks * BLOCK_LEN;
          continue;
        }
      }
      const take = Math.min(BLOCK_LEN - this.blockLen, len - pos);
      this.block8.set(input.subarray(pos, pos + take), this.blockLen);
      this.blockLen += take;
      pos += take;
      if (!LITTLE_ENDIAN && this.blockLen === BLOCK_LEN) swapWords(this.block8, BLOCK_LEN);
    }
  }

  /** Compresses a full block of the chunk in progress; `endFlag` is CHUNK_END for its last block. */
  #compressBlock(m: Uint32Array, mPos: number, endFlag: number): void {
    const c = this.chunkCounter;
    const flags = this.flags | (this.blocksCompressed === 0 ? CHUNK_START : 0) | endFlag;
    compress(this.chunkCv, 0, m, mPos, c >>> 0, (c / TWO_POW_32) >>> 0, BLOCK_LEN, flags, this.chunkCv, 0, 8);
    this.blocksCompressed++;
  }

  /** Hashes `n` whole chunks of `input` from `pos`, each known not to be the last; returns the new position. */
  #hashChunks(input: Uint8Array, pos: number, n: number): number {
    const aligned = LITTLE_ENDIAN && ((input.byteOffset + pos) & 3) === 0;
    const words = aligned
      ? new Uint32Array(input.buffer, input.byteOffset + pos, n * (CHUNK_LEN / 4))
      : (this.#scratch ??= new Uint32Array(CHUNK_LEN / 4));
    const scratch8 = aligned ? undefined : new Uint8Array(words.buffer);
    const key = this.key;
    const flags = this.flags;
    const stack = this.cvStack;
    for (let i = 0; i < n; i++) {
      let m = i * (CHUNK_LEN / 4);
      if (scratch8) {
        scratch8.set(input.subarray(pos + i * CHUNK_LEN, pos + (i + 1) * CHUNK_LEN));
        if (!LITTLE_ENDIAN) swapWords(scratch8, CHUNK_LEN);
        m = 0;
      }
      // The chunk's chaining value is computed in place, in the stack slot it will occupy.
      const cvPos = this.cvStackLen * 8;
      const c = this.chunkCounter;
      const lo = c >>> 0, hi = (c / TWO_POW_32) >>> 0;
      compress(key, 0, words, m, lo, hi, BLOCK_LEN, flags | CHUNK_START, stack, cvPos, 8);
      for (let b = 1; b < 15; b++) compress(stack, cvPos, words, m + b * 16, lo, hi, BLOCK_LEN, flags, stack, cvPos, 8);
      compress(stack, cvPos, words, m + 240, lo, hi, BLOCK_LEN, flags | CHUNK_END, stack, cvPos, 8);
      this.#pushChunkCv(stack, cvPos);
    }
    return pos + n * CHUNK_LEN;
  }

  /**
   * Pushes a finished chunk's chaining value and merges completed subtrees: after chunk number
   * `t` (counted from 1), as many parents are formed as `t` has trailing zero bits.
   */
  #pushChunkCv(cv: Uint32Array, cvPos: number): void {
    const stack = this.cvStack;
    let top = this.cvStackLen * 8;
    if (cv !== stack || cvPos !== top) stack.set(cv.subarray(cvPos, cvPos + 8), top);
    this.cvStackLen++;
    let total = this.chunkCounter + 1 - this.initialChunkCounter;
    const parentFlags = this.flags | PARENT;
    while (total % 2 === 0) {
      top -= 8;
      compress(this.key, 0, stack, top, 0, 0, BLOCK_LEN, parentFlags, stack, top, 8);
      this.cvStackLen--;
      total /= 2;
    }
    this.chunkCounter++;
    this.chunkCv.set(this.key);
    this.blocksCompressed = 0;
    this.blockLen = 0;
  }

  /** Describes the final node without changing the state, so that hashing can continue afterwards. */
  finalize(out: Output): Output {
    out.cv.set(this.chunkCv);
    out.block.set(this.block);
    const block8 = out.block8;
    // Bytes after the buffered ones are zero (spec, section 2.6); on big-endian hosts a partial
    // block has not been word-swapped yet.
    block8.fill(0, this.blockLen);
    if (!LITTLE_ENDIAN && this.blockLen < BLOCK_LEN) swapWords(block8, BLOCK_LEN);
    out.counter = this.chunkCounter;
    out.blockLen = this.blockLen;
    out.flags = this.flags | (this.blocksCompressed === 0 ? CHUNK_START : 0) | CHUNK_END;
    // Fold the stack from the top: each entry is the left sibling of everything to its right.
    for (let i = this.cvStackLen - 1; i >= 0; i--) {
      out.chainingValue(out.block, 8);
      out.block.set(this.cvStack.subarray(i * 8, i * 8 + 8), 0);
      out.cv.set(this.key);
      out.counter = 0;
      out.blockLen = BLOCK_LEN;
      out.flags = this.flags | PARENT;
    }
    return out;
  }
}
