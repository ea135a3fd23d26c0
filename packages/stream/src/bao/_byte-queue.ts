/**
 * Bytes written to a stream, queued until a whole node is there: nodes span chunk boundaries
 * and chunks may be as small as one byte. Everything taken out is copied, so no view of a
 * writer's buffer is checked and then released.
 */
export class ByteQueue {
  #chunks: Uint8Array[] = [];
  /** Index of the first live chunk and the offset of its first unread byte. */
  #first = 0;
  #offset = 0;
  #size = 0;

  get size(): number {
    return this.#size;
  }

  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.#chunks.push(chunk);
    this.#size += chunk.length;
  }

  /**
   * Copies what is left into a buffer of the queue's own. A writer may reuse a chunk's buffer
   * once its write has resolved, so no view of it is kept past the write.
   */
  detach(): void {
    if (this.#size === 0) {
      this.#chunks = [];
      this.#first = 0;
      this.#offset = 0;
      return;
    }
    const rest = new Uint8Array(this.#size);
    const size = this.#size;
    this.takeInto(rest, 0, size);
    this.#chunks = [rest];
    this.#first = 0;
    this.#offset = 0;
    this.#size = size;
  }

  /** A copy of the next `n` bytes, or undefined (nothing consumed) if fewer are queued. */
  take(n: number): Uint8Array | undefined {
    if (n > this.#size) return undefined;
    const out = new Uint8Array(n);
    this.takeInto(out, 0, n);
    return out;
  }

  /** Copies the next `n` bytes (at most `size`) into `dest` at `at`. */
  takeInto(dest: Uint8Array, at: number, n: number): void {
    this.#size -= n;
    while (n > 0) {
      const chunk = this.#chunks[this.#first];
      const m = Math.min(n, chunk.length - this.#offset);
      dest.set(chunk.subarray(this.#offset, this.#offset + m), at);
      at += m;
      n -= m;
      this.#offset += m;
      if (this.#offset === chunk.length) {
        this.#first++;
        this.#offset = 0;
      }
    }
    // Drop consumed chunks in bulk: shifting one at a time is quadratic for one-byte writes.
    if (this.#first > 32 && this.#first * 2 > this.#chunks.length) {
      this.#chunks = this.#chunks.slice(this.#first);
      this.#first = 0;
    }
  }
}
