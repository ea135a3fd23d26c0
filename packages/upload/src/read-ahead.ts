/**
 * Reads ranges of a Blob for an uploader that asks for them in order: while one range is being
 * sent, the next is already being read, so reading is off the request's critical path. A range
 * asked for again (a request retried from the offset the server kept) is assembled from a fresh
 * read of the part before the range read ahead and from that range, whose rest starts the next
 * range read ahead: each byte is read once, plus what the server did not keep. A read that
 * brings nothing for `stallMs` fails with a NotReadableError (the pool's one guard on reads),
 * instead of leaving the upload pending.
 * @module
 */
import { readOrStall, STALL_MS } from '@blake3-web/worker/_internal';
import { joinBytes } from './_join-bytes.js';

type Range = { readonly start: number; readonly end: number; readonly bytes: Promise<Uint8Array> };

const EMPTY = Promise.resolve(new Uint8Array(0));

export class ReadAhead {
  readonly #blob: Blob;
  readonly #stallMs: number;
  #ahead: Range | undefined;
  /** Bytes read from the Blob so far. */
  bytesRead = 0;

  constructor(blob: Blob, stallMs: number = STALL_MS) {
    this.#blob = blob;
    this.#stallMs = stallMs;
  }

  /** The bytes from `start` to `end`, and starts reading the `next` bytes after them (if any). */
  async take(start: number, end: number, next: number): Promise<Uint8Array> {
    const ahead = this.#ahead;
    this.#ahead = undefined;
    const bytes = this.#assemble(start, end, ahead);
    const after = Math.min(end + next, this.#blob.size);
    // What a retried range leaves of the range read ahead starts the next one.
    if (after > end) this.#ahead = { start: end, end: after, bytes: this.#assemble(end, after, ahead) };
    return bytes;
  }

  /** The bytes from `start` to `end`: what `ahead` holds of them, the rest read. */
  #assemble(start: number, end: number, ahead: Range | undefined): Promise<Uint8Array> {
    if (ahead !== undefined && ahead.start === start && ahead.end === end) return ahead.bytes;
    if (ahead === undefined || ahead.end <= start || ahead.start >= end) return this.#read(start, end);
    const from = Math.max(start, ahead.start);
    const to = Math.min(end, ahead.end);
    const bytes = concat([
      from > start ? this.#read(start, from) : EMPTY,
      ahead.bytes.then((b) => b.subarray(from - ahead.start, to - ahead.start)),
      to < end ? this.#read(to, end) : EMPTY,
    ]);
    bytes.catch(() => undefined);
    return bytes;
  }

  /** Drops the range read ahead. */
  clear(): void {
    this.#ahead = undefined;
  }

  #read(start: number, end: number): Promise<Uint8Array> {
    const read = this.#blob.slice(start, end).arrayBuffer();
    const bytes = readOrStall(read, this.#stallMs, `reading bytes [${start}, ${end}) of the file`).then((buffer) => {
      if (buffer.byteLength !== end - start)
        throw new Error(
          `the file changed while it was read: ${buffer.byteLength} bytes at ${start}, expected ${end - start}`,
        );
      this.bytesRead += buffer.byteLength;
      return new Uint8Array(buffer);
    });
    bytes.catch(() => undefined); // a range read ahead may never be asked for; a range taken rethrows
    return bytes;
  }
}

async function concat(parts: Promise<Uint8Array>[]): Promise<Uint8Array> {
  return joinBytes(await Promise.all(parts));
}
