/**
 * A response body read in batches of a size the caller picks, into a buffer it gives (the same
 * one batch after batch, see `_batch-buffers.ts`): straight into it where the body is a byte
 * stream (a BYOB reader: no chunk allocated, nothing copied), else chunk by chunk copied in.
 * Verifying a batch of groups in one call instead of the network's small chunks one by one is
 * what keeps verification off the fetch's critical path. Every wait races the request's stall
 * guard.
 * @module
 */
import type { StallGuard } from './_stall-guard.js';

/** What one `fill` read: `bytes` (the buffer, which may now be another view of the same memory), how many, and why it stopped short. */
export type Filled = { bytes: Uint8Array; n: number; error?: unknown };

export class BodyReader {
  readonly #guard: StallGuard;
  readonly #byob: ReadableStreamBYOBReader | undefined;
  readonly #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  /** A default reader's chunk that ran past the last buffer. */
  #rest: Uint8Array | undefined;

  constructor(body: ReadableStream<Uint8Array>, guard: StallGuard) {
    this.#guard = guard;
    try {
      this.#byob = body.getReader({ mode: 'byob' });
    } catch {
      // Not a byte stream (an engine without them, or a custom fetch's body).
      this.#reader = body.getReader();
    }
  }

  /**
   * Fills `into` (a view of a buffer the caller holds alone: a BYOB read takes the whole buffer
   * over and gives it back as another ArrayBuffer) from the body; fewer bytes only
   * where the body ended or failed (`error`, after the bytes that came before it).
   */
  async fill(into: Uint8Array): Promise<Filled> {
    let bytes = into;
    const size = into.length;
    let n = 0;
    try {
      if (this.#byob) {
        while (n < size) {
          const { value, done } = await this.#guard.race(this.#byob.read(bytes.subarray(n)));
          this.#guard.alive();
          // The read took the buffer over (`bytes` is detached now) and gives it back as `value`.
          if (!value) return { bytes, n: 0 }; // cancelled: nothing of the buffer is left
          bytes = new Uint8Array(value.buffer, value.byteOffset - n, size);
          if (done) break;
          n += value.length;
        }
        return { bytes, n };
      }
      while (n < size) {
        let chunk = this.#rest;
        this.#rest = undefined;
        if (!chunk) {
          const next = await this.#guard.race(this.#reader!.read());
          this.#guard.alive();
          if (next.done) break;
          chunk = next.value;
        }
        const take = Math.min(chunk.length, size - n);
        bytes.set(take === chunk.length ? chunk : chunk.subarray(0, take), n);
        n += take;
        if (take < chunk.length) this.#rest = chunk.subarray(take);
      }
      return { bytes, n };
    } catch (error) {
      // A failed BYOB read keeps the buffer it was given: the bytes before it are gone too.
      return { bytes, n: this.#byob ? 0 : n, error };
    }
  }

  /** Whether the body holds anything past what was filled (read until it ends or sends a byte). */
  async more(): Promise<boolean> {
    if (this.#rest && this.#rest.length > 0) return true;
    const { n, error } = await this.fill(new Uint8Array(1));
    if (error) throw error;
    return n > 0;
  }

  /** Stops the body (the request is over, or failed). */
  cancel(): void {
    void (this.#byob ?? this.#reader)!.cancel().catch(() => {});
  }
}
