import { bytesToHex, constantTimeEqual, hexToBytes } from '@blake3-web/core';
import { aUint8Array, describe, isUint8Array } from './_assert.js';
import { IntegrityError } from './integrity-error.js';

/**
 * The shortest expected digest accepted: 16 bytes (128 bits). A shorter one is no integrity
 * check (an empty digest matches every body, a 1-byte one about one forgery in 256).
 */
export const MIN_DIGEST_BYTES = 16;

/** A digest given as hex (either case) or bytes, as bytes of its own; any length. */
export function digestBytes(value: unknown, name: string): Uint8Array {
  if (typeof value === 'string') {
    try {
      return hexToBytes(value);
    } catch (err) {
      const shown = JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}...` : value);
      throw new RangeError(`${name} must be a hex digest, got ${shown}: ${(err as Error).message}`);
    }
  }
  if (isUint8Array(value)) return aUint8Array(value, name).slice();
  throw new TypeError(`${name} must be a hex string or a Uint8Array, got ${describe(value)}`);
}

/** An expected digest: hex or bytes, at least MIN_DIGEST_BYTES long. */
export function expectedDigest(value: unknown, name = 'expected'): Uint8Array {
  const bytes = digestBytes(value, name);
  if (bytes.length < MIN_DIGEST_BYTES)
    throw new RangeError(`${name} must be a digest of at least ${MIN_DIGEST_BYTES} bytes, got ${bytes.length}`);
  return bytes;
}

/**
 * The IntegrityError for `got` where `want` was expected, or undefined when they are equal. A
 * keyed tag is never disclosed: it is a valid MAC of whatever bytes arrived, so whoever sent them
 * could resubmit it and be accepted.
 */
export function digestMismatch(got: Uint8Array, want: Uint8Array, keyed: boolean): IntegrityError | undefined {
  // In constant time: a keyed digest is a MAC.
  if (constantTimeEqual(got, want)) return undefined;
  const expected = bytesToHex(want);
  if (!keyed) return new IntegrityError(expected, bytesToHex(got));
  return new IntegrityError(
    expected,
    '',
    `BLAKE3 keyed mismatch: expected ${expected}; the tag of the content received is not disclosed`,
  );
}

/** Throws the IntegrityError of `digestMismatch` unless `got` equals `want`. */
export function assertDigest(got: Uint8Array, want: Uint8Array, keyed: boolean): void {
  const mismatch = digestMismatch(got, want, keyed);
  if (mismatch) throw mismatch;
}
