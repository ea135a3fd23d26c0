import { blake3, type Blake3Opts } from '@blake3-web/core';
import { deferred } from './_chunks.js';
import { passThrough } from './_pass-through.js';

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
    super();
    const sides = passThrough({
      chunk: (chunk) => void hasher.update(chunk),
      close: () => result.resolve(hasher.digest()),
      fail: (reason) => result.reject(reason),
    });
    // The subclass keeps TransformStream's shape (pipeThrough reads these two properties).
    Object.defineProperties(this, { readable: { value: sides.readable }, writable: { value: sides.writable } });
    this.digest = result.promise;
  }
}
