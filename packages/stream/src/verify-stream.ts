import { blake3, bytesToHex, hexToBytes, type Blake3Opts } from '@blake3-web/core';
import { passThrough } from './_pass-through.js';
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

/** Throws an IntegrityError unless `got` equals `want`. */
export function assertDigest(got: Uint8Array, want: Uint8Array): void {
  if (!digestsEqual(got, want)) throw new IntegrityError(bytesToHex(want), bytesToHex(got));
}

/**
 * A pass-through `TransformStream` that checks the bytes against an expected BLAKE3 digest. On a
 * mismatch (including a body cut short) the stream errors with an `IntegrityError` at the end,
 * so a consumer that reads to completion never mistakes bad content for good. The digest length
 * sets the output length: a 64-byte expected digest is compared with a 64-byte BLAKE3 output.
 *
 * Bytes pass through as they arrive: for content that must not be used before it is verified,
 * buffer it until the stream closes, or use Bao verified streaming.
 *
 * @example
 * ```ts
 * const body = response.body!.pipeThrough(new VerifyStream('6437b3ac...'));
 * const bytes = await new Response(body).arrayBuffer(); // rejects with IntegrityError on a mismatch
 * ```
 */
export class VerifyStream extends TransformStream<Uint8Array, Uint8Array> {
  declare readonly readable: ReadableStream<Uint8Array>;
  declare readonly writable: WritableStream<Uint8Array>;

  constructor(expected: Uint8Array | string, opts?: Omit<Blake3Opts, 'dkLen'>) {
    const want = expectedDigest(expected).slice();
    if (want.length === 0) throw new RangeError('expected must not be empty');
    const hasher = blake3.create({ ...opts, dkLen: want.length });
    super();
    const sides = passThrough({
      chunk: (chunk) => void hasher.update(chunk),
      close: () => assertDigest(hasher.digest(), want),
      fail: () => {},
    });
    Object.defineProperties(this, { readable: { value: sides.readable }, writable: { value: sides.writable } });
  }
}
