import { blake3, type Blake3Opts } from '@blake3-web/core';
import { assertDigest, expectedDigest } from './_digest.js';
import { PassThroughTransform } from './_pass-through.js';

/**
 * A pass-through `TransformStream` that checks the bytes against an expected BLAKE3 digest. On a
 * mismatch (including a body cut short) the stream errors with an `IntegrityError` at the end,
 * so a consumer that reads to completion never mistakes bad content for good. The digest length
 * sets the output length: a 64-byte expected digest is compared with a 64-byte BLAKE3 output;
 * one shorter than 16 bytes is a RangeError, as it would be no check at all.
 *
 * Bytes pass through as they arrive: for content that must not be used before it is verified,
 * buffer it until the stream closes, or use Bao verified streaming. The reader gets copies of
 * the written chunks, so what it reads is exactly what was verified even when a writer reuses
 * its buffer. With `opts.key`, a mismatch never reveals the tag of the bytes received
 * (`IntegrityError.actual` is empty).
 *
 * @example
 * ```ts
 * const body = response.body!.pipeThrough(new VerifyStream('6437b3ac...'));
 * const bytes = await new Response(body).arrayBuffer(); // rejects with IntegrityError on a mismatch
 * ```
 */
export class VerifyStream extends PassThroughTransform {
  constructor(expected: Uint8Array | string, opts?: Omit<Blake3Opts, 'dkLen'>) {
    const want = expectedDigest(expected);
    const hasher = blake3.create({ ...opts, dkLen: want.length });
    const keyed = opts?.key !== undefined;
    super({
      chunk: (chunk) => void hasher.update(chunk),
      close: () => assertDigest(hasher.digest(), want, keyed),
      // A stream that fails never succeeds: there is nothing to release.
      fail: () => {},
    });
  }
}
