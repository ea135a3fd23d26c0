import { compress } from './_compress.js';
import { ROOT } from './_constants.js';
import { wordsToBytes } from './_bytes.js';

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

  /** The 8-word chaining value of a non-root node, written to `out[outPos]`. */
  chainingValue(out: Uint32Array, outPos: number): void {
    const c = this.counter;
    compress(this.cv, 0, this.block, 0, c >>> 0, (c / 0x100000000) >>> 0, this.blockLen, this.flags, out, outPos, 8);
  }

  /** Fills `out` with root output bytes from byte `position` of the XOF stream. */
  rootBytesAt(out: Uint8Array, position: bigint): void {
    const block = position >> 6n;
    this.rootBytes(out, Number(block & 0xffffffffn), Number((block >> 32n) & 0xffffffffn), Number(position & 63n));
  }

  /** Fills `out` with root output bytes from byte `skip` of output block `hi * 2^32 + lo`. */
  rootBytes(out: Uint8Array, lo = 0, hi = 0, skip = 0): void {
    const words = scratch;
    for (let pos = 0; pos < out.length; ) {
      compress(this.cv, 0, this.block, 0, lo, hi, this.blockLen, this.flags | ROOT, words, 0, 16);
      const n = Math.min(64 - skip, out.length - pos);
      wordsToBytes(words, skip, out, pos, n);
      pos += n;
      skip = 0;
      // The output block counter is 64 bits (spec, section 2.6).
      if (++lo === 0x100000000) (lo = 0), (hi = (hi + 1) >>> 0);
    }
  }
}

const scratch = new Uint32Array(16);
