import { blake3, type Blake3Opts } from '@blake3-web/core';
import { assertChunk, deferred } from './_chunks.js';

/** `cancel` runs when either side is aborted or cancelled (Streams standard, 2023); the DOM typings lag behind. */
type CancellableTransformer = Transformer<Uint8Array, Uint8Array> & { cancel?: (reason: unknown) => void };

/**
 * A pass-through `TransformStream` that hashes every byte it passes on. `digest` resolves once the
 * writable side closes, and rejects if the stream is aborted, cancelled or fed a bad chunk: it
 * never resolves for data that was not fully seen.
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

  constructor(opts?: Blake3Opts) {
    // Validates opts now, at the boundary, rather than when the first chunk arrives.
    const hasher = blake3.create(opts);
    const result = deferred<Uint8Array>();
    const transformer: CancellableTransformer = {
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
      cancel(reason) {
        result.reject(reason);
      },
    };
    super(transformer);
    this.digest = result.promise;
  }
}
