import { aChunk, aUint8Array, describe, isUint8Array } from '../_assert.js';
import { IntegrityError } from '../integrity-error.js';
import { ByteQueue } from './_byte-queue.js';

/** Where a verifier in outboard mode reads the header and parents from. */
export interface OutboardSource {
  /** The next `n` bytes (a copy); an outboard that ends first is an IntegrityError. */
  read(n: number): Uint8Array | Promise<Uint8Array>;
  /**
   * Whether `n` more bytes are there (reading ahead as needed); false if the outboard ends first.
   * When it answers true at once (not a promise), `read(n)` returns the bytes at once too.
   */
  has(n: number): boolean | Promise<boolean>;
  /** Checks that nothing follows the tree. */
  finish(): void | Promise<void>;
  cancel(reason: unknown): void;
}

export function outboardSource(outboard: unknown, hash: Uint8Array): OutboardSource {
  if (outboard instanceof ReadableStream) return new StreamedOutboard(outboard, hash);
  if (isUint8Array(outboard)) return new OutboardBytes(aUint8Array(outboard, 'opts.outboard').slice(), hash);
  throw new TypeError(`opts.outboard must be a Uint8Array or a ReadableStream, got ${describe(outboard)}`);
}

function short(hash: Uint8Array, pos: number): IntegrityError {
  return IntegrityError.corrupt(hash, `the Bao outboard ended early, at byte ${pos}`);
}

function long(hash: Uint8Array, pos: number): IntegrityError {
  return IntegrityError.corrupt(hash, `the Bao outboard has bytes after the end of its tree, at byte ${pos}`);
}

class OutboardBytes implements OutboardSource {
  #pos = 0;
  readonly bytes: Uint8Array;
  readonly hash: Uint8Array;
  constructor(bytes: Uint8Array, hash: Uint8Array) {
    this.bytes = bytes;
    this.hash = hash;
  }

  read(n: number): Uint8Array {
    if (this.#pos + n > this.bytes.length) throw short(this.hash, this.bytes.length);
    return this.bytes.subarray(this.#pos, (this.#pos += n));
  }

  has(n: number): boolean {
    return this.#pos + n <= this.bytes.length;
  }

  finish(): void {
    if (this.#pos !== this.bytes.length) throw long(this.hash, this.#pos);
  }

  cancel(): void {}
}

class StreamedOutboard implements OutboardSource {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #queue = new ByteQueue();
  readonly #hash: Uint8Array;
  #pos = 0;
  #ended = false;

  constructor(stream: ReadableStream<Uint8Array>, hash: Uint8Array) {
    // Locked now, so nobody else reads parents out from under the verifier.
    this.#reader = stream.getReader();
    this.#hash = hash;
  }

  read(n: number): Uint8Array | Promise<Uint8Array> {
    const ready = this.#queue.take(n);
    if (ready !== undefined) {
      this.#pos += n;
      return ready;
    }
    return this.#fill(n).then((filled) => {
      if (!filled) throw short(this.#hash, this.#pos + this.#queue.size);
      return this.read(n);
    });
  }

  has(n: number): boolean | Promise<boolean> {
    return this.#queue.size >= n || this.#fill(n);
  }

  async finish(): Promise<void> {
    if (this.#queue.size > 0) throw long(this.#hash, this.#pos);
    if (this.#ended) return;
    const { done, value } = await this.#reader.read();
    if (!done) {
      if (aChunk(value).length > 0) throw long(this.#hash, this.#pos);
      return this.finish();
    }
  }

  cancel(reason: unknown): void {
    this.#reader.cancel(reason).catch(() => {});
  }

  /** Reads until `n` bytes are queued; false if the outboard ends first. */
  async #fill(n: number): Promise<boolean> {
    while (this.#queue.size < n) {
      if (this.#ended) return false;
      const { done, value } = await this.#reader.read();
      if (done) {
        this.#ended = true;
        return false;
      }
      this.#queue.push(aChunk(value));
    }
    return true;
  }
}
