import { compress } from './_compress.js';
import { BLOCK_LEN, CHUNK_END, CHUNK_START, ROOT } from './_constants.js';
import { LITTLE_ENDIAN, swapWords, wordsToBytes } from './_bytes.js';
import { jsKernels } from './_kernels.js';
import { kernels } from './backend.js';
import { WASM_MIN_XOF_BLOCKS } from './wasm/_kernel.js';

const TWO_POW_32 = 0x100000000;

/**
 * The inputs of a final compression (spec, section 2.6): the root or a subtree's top node, not
 * yet compressed, so that it can give either a chaining value or any number of output bytes.
 */
export class Output {
  readonly cv = new Uint32Array(8);
  readonly block = new Uint32Array(16);
  readonly block8 = new Uint8Array(this.block.buffer);
  counter = 0;
  blockLen = 0;
  flags = 0;

  copyFrom(o: Output): this {
    this.cv.set(o.cv);
    this.block.set(o.block);
    this.counter = o.counter;
    this.blockLen = o.blockLen;
    this.flags = o.flags;
    return this;
  }

  /**
   * Makes this the output of the chunk of `len` (0 to 1024) bytes at `src[pos]`: compresses all
   * its blocks but the last, which stays here zero-padded (spec, section 2.6).
   */
  setChunk(src: Uint8Array, pos: number, len: number, counter: number, key: Uint32Array, flags: number): this {
    const lo = counter >>> 0, hi = (counter / TWO_POW_32) >>> 0;
    const full = len === 0 ? 0 : Math.ceil(len / BLOCK_LEN) - 1;
    const aligned = LITTLE_ENDIAN && ((src.byteOffset + pos) & 3) === 0;
    const words = aligned && full > 0 ? new Uint32Array(src.buffer, src.byteOffset + pos, full * 16) : undefined;
    this.cv.set(key);
    for (let b = 0; b < full; b++) {
      const blockFlags = flags | (b === 0 ? CHUNK_START : 0);
      if (words) {
        compress(this.cv, 0, words, b * 16, lo, hi, BLOCK_LEN, blockFlags, this.cv, 0, 8);
      } else {
        this.block8.set(src.subarray(pos + b * BLOCK_LEN, pos + (b + 1) * BLOCK_LEN));
        if (!LITTLE_ENDIAN) swapWords(this.block8, BLOCK_LEN);
        compress(this.cv, 0, this.block, 0, lo, hi, BLOCK_LEN, blockFlags, this.cv, 0, 8);
      }
    }
    const lastLen = len - full * BLOCK_LEN;
    this.block8.fill(0);
    this.block8.set(src.subarray(pos + full * BLOCK_LEN, pos + len));
    if (!LITTLE_ENDIAN) swapWords(this.block8, BLOCK_LEN);
    this.counter = counter;
    this.blockLen = lastLen;
    this.flags = flags | (full === 0 ? CHUNK_START : 0) | CHUNK_END;
    return this;
  }

  /** Makes this the parent node of the chaining values at `cvs[leftPos]` and `cvs[rightPos]`. */
  setParent(cvs: Uint32Array, leftPos: number, rightPos: number, key: Uint32Array, flags: number): this {
    this.cv.set(key);
    this.block.set(cvs.subarray(leftPos, leftPos + 8), 0);
    this.block.set(cvs.subarray(rightPos, rightPos + 8), 8);
    this.counter = 0;
    this.blockLen = BLOCK_LEN;
    this.flags = flags;
    return this;
  }

  /** The 8-word chaining value of a non-root node, written to `out[outPos]`. */
  chainingValue(out: Uint32Array, outPos: number): void {
    const c = this.counter;
    compress(this.cv, 0, this.block, 0, c >>> 0, (c / TWO_POW_32) >>> 0, this.blockLen, this.flags, out, outPos, 8);
  }

  /** Fills `out` with root output bytes from byte `position` of the XOF stream. */
  rootBytesAt(out: Uint8Array, position: bigint): void {
    const block = position >> 6n;
    this.rootBytes(out, Number(block & 0xffffffffn), Number((block >> 32n) & 0xffffffffn), Number(position & 63n));
  }

  /** Fills `out` with root output bytes from byte `skip` of output block `hi * 2^32 + lo`. */
  rootBytes(out: Uint8Array, lo = 0, hi = 0, skip = 0): void {
    const words = scratch;
    let pos = 0;
    for (;;) {
      const whole = skip === 0 ? Math.floor((out.length - pos) / BLOCK_LEN) : 0;
      if (whole > 0) {
        // Whole blocks: several at once where the backend can (4 output counters per SIMD step).
        (whole >= WASM_MIN_XOF_BLOCKS ? kernels() : jsKernels).rootBlocks(this, out, pos, whole, lo, hi);
        pos += whole * BLOCK_LEN;
        lo += whole;
        if (lo >= TWO_POW_32) (lo -= TWO_POW_32), (hi = (hi + 1) >>> 0);
      }
      if (pos >= out.length) return;
      // A block read in part: where the read starts or ends inside a block. Reads within its
      // first 32 bytes (every default-length digest) need only half the output words.
      const n = Math.min(BLOCK_LEN - skip, out.length - pos);
      compress(this.cv, 0, this.block, 0, lo, hi, this.blockLen, this.flags | ROOT, words, 0, skip + n <= 32 ? 8 : 16);
      if (LITTLE_ENDIAN) out.set(scratch8.subarray(skip, skip + n), pos);
      else wordsToBytes(words, skip, out, pos, n);
      pos += n;
      skip = 0;
      // The output block counter is 64 bits (spec, section 2.6).
      if (++lo === TWO_POW_32) (lo = 0), (hi = (hi + 1) >>> 0);
    }
  }
}

const scratch = new Uint32Array(16);
const scratch8 = new Uint8Array(scratch.buffer);
