/**
 * Reads ranges of a Blob for an uploader that asks for them in order: while one range is being
 * sent, the next is already being read, so reading is off the request's critical path. A range
 * asked for again (a request retried from the offset the server kept) is assembled from a fresh
 * read of the part before the range read ahead and from that range itself: each byte is read once,
 * plus what the server did not keep.
 * @module
 */

type Range = { readonly start: number; readonly end: number; readonly bytes: Promise<Uint8Array> };

const EMPTY = Promise.resolve(new Uint8Array(0));

export class ReadAhead {
  readonly #blob: Blob;
  #ahead: Range | undefined;
  /** Bytes read from the Blob so far. */
  bytesRead = 0;

  constructor(blob: Blob) {
    this.#blob = blob;
  }

  /** The bytes from `start` to `end`, and starts reading the `next` bytes after them (if any). */
  async take(start: number, end: number, next: number): Promise<Uint8Array> {
    const ahead = this.#ahead;
    this.#ahead = undefined;
    let bytes: Promise<Uint8Array>;
    if (ahead !== undefined && ahead.start === start && ahead.end === end) bytes = ahead.bytes;
    else if (ahead === undefined || ahead.end <= start || ahead.start >= end) bytes = this.#read(start, end);
    else {
      const from = Math.max(start, ahead.start);
      const to = Math.min(end, ahead.end);
      bytes = concat([
        from > start ? this.#read(start, from) : EMPTY,
        ahead.bytes.then((b) => b.subarray(from - ahead.start, to - ahead.start)),
        to < end ? this.#read(to, end) : EMPTY,
      ]);
    }
    const after = Math.min(end + next, this.#blob.size);
    // A retried range that ends where the range read ahead starts leaves it for the next call.
    if (ahead !== undefined && ahead.start === end && ahead.end === after) this.#ahead = ahead;
    else if (after > end) this.#ahead = { start: end, end: after, bytes: this.#read(end, after) };
    return bytes;
  }

  /** Drops the range read ahead. */
  clear(): void {
    this.#ahead = undefined;
  }

  #read(start: number, end: number): Promise<Uint8Array> {
    const bytes = this.#blob
      .slice(start, end)
      .arrayBuffer()
      .then((buffer) => {
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
  const pieces = await Promise.all(parts);
  const out = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of pieces) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
