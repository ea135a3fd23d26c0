import { abytes, anOutputLen, auint } from './_assert.js';
import { Output } from './_output.js';

/** BLAKE3 defines up to 2^64 output bytes (spec, section 2.6), as the reference implementation does. */
const XOF_END = 1n << 64n;

/** Reads the extended output of a finished hash from any position. */
export class OutputReader {
  readonly #output: Output;
  #position = 0n;

  /** @internal The reader keeps its own copy of `output`. */
  constructor(output: Output) {
    this.#output = new Output().copyFrom(output);
  }

  /** Byte offset in the output stream of the next byte read; set it to seek. */
  get position(): bigint {
    return this.#position;
  }

  set position(value: bigint | number) {
    const p = auint(value, 'position');
    if (p > XOF_END) throw new RangeError(`position must be at most 2^64, got ${p}n`);
    this.#position = p;
  }

  /** The next `n` bytes of output (at most 2^30 per call; readInto fills a caller's array of any size). */
  read(n: number): Uint8Array {
    const out = new Uint8Array(anOutputLen(n, 'n'));
    this.readInto(out);
    return out;
  }

  /** Fills `out` with the next `out.length` bytes of output. */
  readInto(out: Uint8Array): void {
    const bytes = abytes(out, 'out');
    const end = this.#position + BigInt(bytes.length);
    if (end > XOF_END)
      throw new RangeError(`cannot read ${bytes.length} bytes at position ${this.#position}n: the stream ends at 2^64`);
    this.#output.rootBytesAt(bytes, this.#position);
    this.#position = end;
  }
}
