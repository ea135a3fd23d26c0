import { blake3, type Blake3Opts } from '@blake3-web/core';
import { deferred } from './_deferred.js';
import { PassThroughTransform } from './_pass-through.js';

/**
 * A pass-through `TransformStream` that hashes every byte it passes on. `digest` resolves once the
 * writable side closes, and rejects if the stream is aborted, cancelled or fed a bad chunk: it
 * never resolves for data that was not fully seen, and never stays pending after a failure. The
 * reader gets copies of the written chunks, so `digest` is the hash of exactly what was read
 * even when a writer reuses its buffer.
 *
 * Its two sides are a plain `ReadableStream` and `WritableStream` that behave as an identity
 * `TransformStream`'s (see `_pass-through.ts`).
 *
 * @example
 * ```ts
 * const hashing = new Blake3Stream();
 * const body = (await fetch(url)).body!.pipeThrough(hashing);
 * await new Response(body).arrayBuffer();
 * bytesToHex(await hashing.digest);
 * ```
 */
export class Blake3Stream extends PassThroughTransform {
  /** The hash of everything written, `opts.dkLen` bytes (default 32). */
  readonly digest: Promise<Uint8Array>;

  constructor(opts?: Blake3Opts) {
    // Validates opts now, at the boundary, rather than when the first chunk arrives.
    const hasher = blake3.create(opts);
    const result = deferred<Uint8Array>();
    super({
      chunk: (chunk) => void hasher.update(chunk),
      close: () => result.resolve(hasher.digest()),
      fail: (reason) => result.reject(reason),
    });
    this.digest = result.promise;
  }
}
