import { compress } from './_compress.js';
import { BLOCK_LEN, ROOT, TWO_POW_32 } from './_constants.js';
import { LITTLE_ENDIAN, wordsToBytes } from './_bytes.js';
import { Node } from './_node.js';
import { xofKernels } from './backend.js';

/** The root or a subtree's top node, read as output: a chaining value or any number of output bytes. */
export class Output extends Node {
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
        xofKernels(whole).rootBlocks(this, out, pos, whole, lo, hi);
        pos += whole * BLOCK_LEN;
        lo += whole;
        if (lo >= TWO_POW_32) ((lo -= TWO_POW_32), (hi = (hi + 1) >>> 0));
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
      if (++lo === TWO_POW_32) ((lo = 0), (hi = (hi + 1) >>> 0));
    }
  }
}

const scratch = new Uint32Array(16);
const scratch8 = new Uint8Array(scratch.buffer);
