import { blake3, bytesToHex, hexToBytes, type Blake3Opts } from '@blake3-web/core';
import { PassThroughTransform } from './_pass-through.js';
import { describe } from './_describe.js';
import { IntegrityError } from './integrity-error.js';

/** The expected digest as bytes: hex (either case) or a Uint8Array. */
export function expectedDigest(expected: unknown, name = 'expected'): Uint8Array {
  if (typeof expected === 'string') {
    try {
      return hexToBytes(expected);
    } catch (err) {
      throw new RangeError(`${name} must be a hex digest: ${(err as Error).message}`);
    }
  }
  if (Object.prototype.toString.call(expected) === '[object Uint8Array]') return expected as Uint8Array;
  throw new TypeError(`${name} must be a hex string or a Uint8Array, got ${describe(expected)}`);
}

/** Compares in time that depends only on the lengths, not on where the digests differ. */
export function digestsEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

/**
 * Throws an IntegrityError unless `got` equals `want`. A keyed tag is never disclosed: it is a
 * valid MAC of whatever bytes arrived, so whoever sent them could resubmit it and be accepted.
 */
export function assertDigest(got: Uint8Array, want: Uint8Array, keyed: boolean): void {
  if (digestsEqual(got, want)) return;
  const expected = bytesToHex(want);
  if (!keyed) throw new IntegrityError(expected, bytesToHex(got));
  throw new IntegrityError(expected, '', `BLAKE3 keyed mismatch: expected ${expected}; the tag of the content received is not disclosed`);
}

/**
 * A pass-through `TransformStream` that checks the bytes against an expected BLAKE3 digest. On a
 * mismatch (including a body cut short) the stream errors with an `IntegrityError` at the end,
 * so a consumer that reads to completion never mistakes bad content for good. The digest length
 * sets the output length: a 64-byte expected digest is compared with a 64-byte BLAKE3 output.
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
    const want = expectedDigest(expected).slice();
    if (want.length === 0) throw new RangeError('expected must not be empty');
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
