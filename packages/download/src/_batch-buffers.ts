/**
 * The buffers a download reads its responses into, a batch at a time, reused from one batch to
 * the next and from one range to the next. A fresh buffer per batch is garbage the engine frees
 * when its collector gets to it, and Firefox's gets to it late: reading 2 GiB that way grew its
 * tab process by hundreds of MiB, as if nothing were freed, against a few tens with buffers reused
 * (packages/download/bench/browser-download.ts, its `fresh` and `reuse` parts).
 *
 * A buffer is taken by one request, which holds it until the request ends: while the body reads
 * into it, while its groups are verified, and until the store (and any other taker of verified
 * bytes) has settled its call, after which nothing may hold it (`StoredContent.write`). Then it
 * is given back, unless the body may still hold it: a BYOB read that did not end takes the
 * buffer over and leaves the request a detached one, which is never kept.
 * @module
 */

export class BatchBuffers {
  /** Bytes per buffer. */
  readonly size: number;
  readonly #keep: number;
  readonly #free: ArrayBuffer[] = [];

  /** Buffers of `size` bytes, at most `keep` of them kept free for the next request. */
  constructor(size: number, keep: number) {
    this.size = size;
    this.#keep = keep;
  }

  /** A buffer no one else holds: a free one, else a new one. */
  take(): ArrayBuffer {
    return this.#free.pop() ?? new ArrayBuffer(this.size);
  }

  /**
   * Gives back a buffer its taker no longer holds, nor anything it handed it to. A detached
   * buffer (a body took it over), one of another size, or one already given back, is dropped.
   */
  give(buffer: ArrayBuffer): void {
    if (buffer.byteLength !== this.size || this.#free.length >= this.#keep || this.#free.includes(buffer)) return;
    this.#free.push(buffer);
  }
}
