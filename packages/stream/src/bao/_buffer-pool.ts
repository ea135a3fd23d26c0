/**
 * Memory that outputs were copied out of, kept to gather the next nodes into: a verifying
 * stream read with a BYOB reader then touches no fresh memory per node. Buffers come back only
 * from such a reader (a default reader keeps the arrays it gets), so the pool stays empty and
 * every node gets a fresh array when nothing brings its own buffer.
 */
export class BufferPool {
  readonly #free: ArrayBuffer[] = [];
  #bytes = 0;

  /**
   * An array of `n` bytes: a view of the smallest free buffer that holds it, or a fresh array.
   * Bytes past `n` in a reused buffer are left as they were: never hand its buffer on whole.
   */
  take(n: number): Uint8Array {
    let best = -1;
    for (let i = 0; i < this.#free.length; i++) {
      const size = this.#free[i].byteLength;
      if (size >= n && (best < 0 || size < this.#free[best].byteLength)) best = i;
    }
    if (best < 0) return new Uint8Array(n);
    const [buffer] = this.#free.splice(best, 1);
    this.#bytes -= buffer.byteLength;
    return new Uint8Array(buffer, 0, n);
  }

  /** Keeps free buffers up to `limit` bytes in all; the rest go to the garbage collector. */
  give(buffers: ArrayBuffer[], limit: number): void {
    for (const buffer of buffers) {
      if (this.#bytes + buffer.byteLength > limit) continue;
      this.#free.push(buffer);
      this.#bytes += buffer.byteLength;
    }
  }
}
