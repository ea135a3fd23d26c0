/** Exact-length reads from a body stream, without `for await` (WebKit has none over streams). */
export class ByteReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  #pending: Uint8Array = new Uint8Array(0);

  constructor(body: ReadableStream<Uint8Array> | null) {
    this.#reader = body?.getReader();
  }

  /** `n` bytes, or fewer if the body ends first. */
  async read(n: number): Promise<Uint8Array> {
    const out = new Uint8Array(n);
    let filled = Math.min(n, this.#pending.length);
    out.set(this.#pending.subarray(0, filled));
    this.#pending = this.#pending.subarray(filled);
    while (filled < n && this.#reader) {
      const { done, value } = await this.#reader.read();
      if (done) return out.subarray(0, filled);
      const take = Math.min(n - filled, value.length);
      out.set(value.subarray(0, take), filled);
      filled += take;
      this.#pending = value.subarray(take);
    }
    return out.subarray(0, filled);
  }

  async skip(n: number): Promise<void> {
    while (n > 0) {
      const got = await this.read(Math.min(n, 1 << 20));
      if (got.length === 0) return;
      n -= got.length;
    }
  }

  async cancel(): Promise<void> {
    await this.#reader?.cancel().catch(() => {});
  }
}
