import { isUnshared } from '../_assert.js';

/**
 * Bytes written to a stream, queued until whole nodes are there: nodes span chunk boundaries
 * and chunks may be as small as one byte. Everything taken out is copied, so no view of a
 * writer's buffer is checked and then released.
 */
export class ByteQueue {
  #chunks: Uint8Array[] = [];
  /** Whether each chunk is a copy of our own, rather than a buffer the writer handed over. */
  #owned: boolean[] = [];
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
    this.#owned.push(false);
    this.#size += chunk.length;
  }

  /**
   * Copies the unread part of every chunk the writer handed over. A writer may reuse a chunk's
   * buffer once its write has resolved, so no view of it is kept past the write; bytes copied
   * before are not copied again.
   */
  detach(): void {
    for (let i = this.#first; i < this.#chunks.length; i++) {
      if (this.#owned[i]) continue;
      const from = i === this.#first ? this.#offset : 0;
      this.#chunks[i] = this.#chunks[i].slice(from);
      this.#owned[i] = true;
      if (i === this.#first) this.#offset = 0;
    }
  }

  /** A copy of the next `n` bytes, or undefined (nothing consumed) if fewer are queued. */
  take(n: number): Uint8Array | undefined {
    if (n > this.#size) return undefined;
    const out = new Uint8Array(n);
    this.takeInto(out, 0, n);
    return out;
  }

  /**
   * A view of the next `n` bytes where they lie, when they lie in one chunk whose memory no other
   * thread can change (not a SharedArrayBuffer); nothing is consumed. The view is valid only
   * until the write that queued it returns: use it synchronously.
   */
  peek(n: number): Uint8Array | undefined {
    if (n > this.#size || n === 0) return undefined;
    const chunk = this.#chunks[this.#first];
    if (chunk.length - this.#offset < n || !isUnshared(chunk.buffer)) return undefined;
    return chunk.subarray(this.#offset, this.#offset + n);
  }

  /** Copies the next `n` bytes (at most `size`) into `dest` at `at`; only drops them without `dest`. */
  takeInto(dest: Uint8Array | undefined, at: number, n: number): void {
    this.#size -= n;
    while (n > 0) {
      const chunk = this.#chunks[this.#first];
      const m = Math.min(n, chunk.length - this.#offset);
      dest?.set(chunk.subarray(this.#offset, this.#offset + m), at);
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
      this.#owned = this.#owned.slice(this.#first);
      this.#first = 0;
    }
  }
}
