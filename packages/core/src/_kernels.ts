import { compress } from './_compress.js';
import { BLOCK_LEN, CHUNK_END, CHUNK_LEN, CHUNK_START, PARENT, ROOT } from './_constants.js';
import { LITTLE_ENDIAN, swapWords, wordsToBytes } from './_bytes.js';
import type { Backend } from './backend.js';
import type { Output } from './_output.js';

/**
 * The most chunks one `chunks()` call takes: one copy into WASM memory, one call (64 KiB).
 * 16 or 32 (copies that stay in L1) measured the same within noise (1 MiB: 1953-2019 / 1984-2061 vs 1938-1990 MB/s).
 */
export const MAX_CALL_CHUNKS = 64;

/**
 * The bulk operations a backend provides; the rest of the hash (CV stack, last chunk, final
 * node) is shared JS. One table is chosen when the backend is selected, not per call.
 */
export interface Kernels {
  readonly name: Backend;
  /**
   * Hashes `n` (1 to MAX_CALL_CHUNKS) whole chunks of `src` from byte `pos`, none of them the
   * root, the first with chunk counter `counter`; then merges `merges` levels of parents (n is
   * then a multiple of 2^merges). Writes the n >> merges chaining values to `out[outPos]`.
   */
  chunks(src: Uint8Array, pos: number, n: number, counter: number, key: Uint32Array, flags: number, merges: number, out: Uint32Array, outPos: number): void;
  /** Writes `blocks` 64-byte root output blocks of `node`, from output block `hi * 2^32 + lo`, to `out[outPos]`. */
  rootBlocks(node: Output, out: Uint8Array, outPos: number, blocks: number, lo: number, hi: number): void;
}

const TWO_POW_32 = 0x100000000;
let cvs: Uint32Array | undefined;
let chunkScratch: Uint32Array | undefined;
let blockScratch: Uint32Array | undefined;

/** The portable backend: the unrolled scalar compress, one block at a time. */
export const jsKernels: Kernels = {
  name: 'js',

  chunks(src, pos, n, counter, key, flags, merges, out, outPos) {
    const words = (cvs ??= new Uint32Array(MAX_CALL_CHUNKS * 8));
    const aligned = LITTLE_ENDIAN && ((src.byteOffset + pos) & 3) === 0;
    const m = aligned ? new Uint32Array(src.buffer, src.byteOffset + pos, n * (CHUNK_LEN / 4)) : (chunkScratch ??= new Uint32Array(CHUNK_LEN / 4));
    const m8 = aligned ? undefined : new Uint8Array(m.buffer);
    for (let i = 0; i < n; i++) {
      let mPos = i * (CHUNK_LEN / 4);
      if (m8) {
        m8.set(src.subarray(pos + i * CHUNK_LEN, pos + (i + 1) * CHUNK_LEN));
        if (!LITTLE_ENDIAN) swapWords(m8, CHUNK_LEN);
        mPos = 0;
      }
      const c = counter + i;
      const lo = c >>> 0, hi = (c / TWO_POW_32) >>> 0;
      const cvPos = i * 8;
      compress(key, 0, m, mPos, lo, hi, BLOCK_LEN, flags | CHUNK_START, words, cvPos, 8);
      for (let b = 1; b < 15; b++) compress(words, cvPos, m, mPos + b * 16, lo, hi, BLOCK_LEN, flags, words, cvPos, 8);
      compress(words, cvPos, m, mPos + 240, lo, hi, BLOCK_LEN, flags | CHUNK_END, words, cvPos, 8);
    }
    let count = n;
    for (let level = 0; level < merges; level++) {
      count >>= 1;
      // Parent i reads CVs 2i and 2i+1 (words 16i..16i+15) and writes words 8i..8i+7: never ahead of a read.
      for (let i = 0; i < count; i++) compress(key, 0, words, 16 * i, 0, 0, BLOCK_LEN, flags | PARENT, words, 8 * i, 8);
    }
    out.set(words.subarray(0, count * 8), outPos);
  },

  rootBlocks(node, out, outPos, blocks, lo, hi) {
    const flags = node.flags | ROOT;
    // Output words straight into `out` where it can be viewed as words (64 KiB of XOF: 340 -> 758 MB/s).
    const direct = LITTLE_ENDIAN && ((out.byteOffset + outPos) & 3) === 0;
    const words = direct ? new Uint32Array(out.buffer, out.byteOffset + outPos, blocks * 16) : (blockScratch ??= new Uint32Array(16));
    for (let b = 0; b < blocks; b++) {
      compress(node.cv, 0, node.block, 0, lo, hi, node.blockLen, flags, words, direct ? b * 16 : 0, 16);
      if (!direct) wordsToBytes(words, 0, out, outPos + b * BLOCK_LEN, BLOCK_LEN);
      // The output block counter is 64 bits (spec, section 2.6).
      if (++lo === TWO_POW_32) (lo = 0), (hi = (hi + 1) >>> 0);
    }
  },
};
