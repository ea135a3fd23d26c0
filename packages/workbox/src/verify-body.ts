import { blake3, bytesToHex, hexToBytes } from '@blake3-web/core';
import { IntegrityError } from '@blake3-web/stream';

/** The expected digest as bytes; a malformed one is a TypeError/RangeError, never a silent pass. */
export function expectedBytes(hash: string | Uint8Array): Uint8Array {
  if (typeof hash === 'string') return hexToBytes(hash);
  if (hash instanceof Uint8Array) return hash;
  throw new TypeError(`expectedHash must return a hex string, a Uint8Array or undefined, got ${typeof hash}`);
}

/** Digest equality in time independent of where they differ (keyed digests are MACs). */
export function sameDigest(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length && i < b.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

/** Reads a whole body and checks it; a match gives a fresh Response with the same bytes, status and headers. */
export async function verifyBody(response: Response, expected: Uint8Array):
  Promise<{ ok: true; response: Response } | { ok: false; error: IntegrityError }> {
  const bytes = new Uint8Array(await response.arrayBuffer());
  const actual = blake3(bytes, { dkLen: expected.length });
  if (!sameDigest(actual, expected)) return { ok: false, error: new IntegrityError(bytesToHex(expected), bytesToHex(actual)) };
  const init = { status: response.status, statusText: response.statusText, headers: response.headers };
  return { ok: true, response: new Response(response.body === null ? null : bytes, init) };
}
