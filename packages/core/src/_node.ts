import { compress } from './_compress.js';
import { BLOCK_LEN, CHUNK_END, CHUNK_START, ROOT, TWO_POW_32 } from './_constants.js';
import { alignedWords, LITTLE_ENDIAN, swapWords } from './_bytes.js';
import type { KernelNode } from './_kernels.js';

const scratch = new Uint32Array(16);
const scratch8 = new Uint8Array(scratch.buffer);

/**
 * The reference's chunk state, for the blocks of a chunk that are whole: compresses `blocks`
 * 64-byte blocks of `src` from byte `pos`, from the 8-word chaining value `cv` on, into
 * `out[outPos]` (`out` may be `cv`). The first block gets CHUNK_START, the last also
 * `lastFlags`. The blocks are read in place from `words` at `wordPos` where the caller has that
 * view (`alignedWords`, one per call: a view per chunk cost the JS backend 3% at 1 MiB), else
 * through a copy.
 */
export function compressChunkBlocks(
  src: Uint8Array,
  pos: number,
  words: Uint32Array | undefined,
  wordPos: number,
  blocks: number,
  cv: Uint32Array,
  counter: number,
  flags: number,
  lastFlags: number,
  out: Uint32Array,
  outPos: number,
): void {
  if (blocks === 0) {
    if (out !== cv || outPos !== 0) out.set(cv, outPos);
    return;
  }
  const lo = counter >>> 0,
    hi = (counter / TWO_POW_32) >>> 0;
  const m = words ?? scratch;
  // Block 0 starts from `cv`, the rest from the chaining value so far, in `out`.
  for (let b = 0; b < blocks; b++) {
    let mPos = wordPos + b * 16;
    if (!words) {
      scratch8.set(src.subarray(pos + b * BLOCK_LEN, pos + (b + 1) * BLOCK_LEN));
      if (!LITTLE_ENDIAN) swapWords(scratch8, BLOCK_LEN);
      mPos = 0;
    }
    const blockFlags = flags | (b === blocks - 1 ? lastFlags : 0);
    if (b === 0) compress(cv, 0, m, mPos, lo, hi, BLOCK_LEN, blockFlags | CHUNK_START, out, outPos, 8);
    else compress(out, outPos, m, mPos, lo, hi, BLOCK_LEN, blockFlags, out, outPos, 8);
  }
}

/**
 * The inputs of a compression not yet done (spec, section 2.6): the last block of a chunk or a
 * parent, so that it can give either a chaining value or, as the root, any number of output bytes.
 */
export class Node implements KernelNode {
  readonly cv: Uint32Array = new Uint32Array(8);
  readonly block: Uint32Array = new Uint32Array(16);
  readonly block8: Uint8Array = new Uint8Array(this.block.buffer);
  counter = 0;
  blockLen = 0;
  flags = 0;

  copyFrom(o: Node): this {
    this.cv.set(o.cv);
    this.block.set(o.block);
    this.counter = o.counter;
    this.blockLen = o.blockLen;
    this.flags = o.flags;
    return this;
  }

  /**
   * Makes this the last block of the chunk of `len` (0 to 1024) bytes at `src[pos]`: compresses
   * all its blocks but the last, which stays here zero-padded (spec, section 2.6).
   */
  setChunk(src: Uint8Array, pos: number, len: number, counter: number, key: Uint32Array, flags: number): this {
    const full = len === 0 ? 0 : (len - 1) >>> 6;
    compressChunkBlocks(
      src,
      pos,
      full > 0 ? alignedWords(src, pos, full * BLOCK_LEN) : undefined,
      0,
      full,
      key,
      counter,
      flags,
      0,
      this.cv,
      0,
    );
    this.block8.fill(0);
    this.block8.set(src.subarray(pos + full * BLOCK_LEN, pos + len));
    if (!LITTLE_ENDIAN) swapWords(this.block8, BLOCK_LEN);
    this.counter = counter;
    this.blockLen = len - full * BLOCK_LEN;
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

  /** The first `words` (8 or 16) words of root output block 0, written to `out[outPos]`. */
  rootWords(out: Uint32Array, outPos: number, words: 8 | 16): void {
    compress(this.cv, 0, this.block, 0, 0, 0, this.blockLen, this.flags | ROOT, out, outPos, words);
  }
}
