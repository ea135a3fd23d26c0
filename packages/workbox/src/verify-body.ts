import { blake3, bytesToHex, hexToBytes } from '@blake3-web/core';
import { IntegrityError } from '@blake3-web/stream';

/**
 * The shortest digest accepted: 16 bytes (128 bits). A shorter one is no integrity check (an
 * empty digest matches every body, a 1-byte one about one forgery in 256), so it is refused.
 */
export const MIN_DIGEST_BYTES = 16;

/**
 * The most a `'before-use'` check holds in memory by default: 64 MiB. It is 32 times what
 * workbox-build precaches by default (`maximumFileSizeToCacheInBytes`, 2 MiB), so assets fit
 * with room to spare, while an endless or oversized body fails long before it can exhaust a
 * service worker; larger content belongs to `verify: 'streaming'` or Bao ranges.
 */
export const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

/** The expected digest as bytes; a malformed or too short one is a TypeError/RangeError, never a silent pass. */
export function expectedBytes(hash: string | Uint8Array, name = 'expectedHash'): Uint8Array {
  let bytes: Uint8Array;
  if (typeof hash === 'string') {
    try {
      bytes = hexToBytes(hash);
    } catch (err) {
      throw new RangeError(`${name} must give an even number of hex digits, got ${JSON.stringify(hash.length > 80 ? `${hash.slice(0, 80)}...` : hash)}: ${(err as Error).message}`);
    }
  } else if (hash instanceof Uint8Array) bytes = hash.slice();
  else throw new TypeError(`${name} must give a hex string, a Uint8Array or undefined, got ${hash === null ? 'null' : typeof hash}`);
  if (bytes.length < MIN_DIGEST_BYTES) {
    throw new RangeError(`${name} must give a digest of at least ${MIN_DIGEST_BYTES} bytes, got ${bytes.length}`);
  }
  return bytes;
}

/** Digest equality in time independent of where they differ (keyed digests are MACs). */
export function sameDigest(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length && i < b.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

/** The body outgrew `maxBytes`: it is not held, so it cannot be checked. */
export function tooLarge(maxBytes: number, got: string): RangeError {
  return new RangeError(`the response body exceeds opts.maxBytes (${maxBytes} bytes): ${got}`);
}

/**
 * Reads a whole body, at most `maxBytes` of it, and checks it. A match gives a fresh Response
 * with the same bytes, status and headers. Every chunk is copied into a buffer of this function's
 * own as it arrives, and that buffer is what is hashed and released, so the bytes released are
 * the bytes hashed even if the source reuses its buffers. A body longer than `maxBytes` is
 * cancelled and rejects with a RangeError.
 */
export async function verifyBody(response: Response, expected: Uint8Array, maxBytes: number):
  Promise<{ ok: true; response: Response } | { ok: false; error: IntegrityError }> {
  const declared = response.headers.get('content-length')?.trim();
  const length = declared !== undefined && /^\d+$/.test(declared) ? Number(declared) : undefined;
  if (length !== undefined && length > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge(maxBytes, `Content-Length is ${declared}`);
  }
  // Content-Length, when there is one, sizes the buffer (it is a hint: a body may differ).
  let held = new Uint8Array(Math.min(length ?? 65_536, maxBytes));
  let total = 0;
  if (response.body !== null) {
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (!(value instanceof Uint8Array)) throw new TypeError(`the response body gave a chunk that is not a Uint8Array: ${typeof value}`);
        if (total + value.length > maxBytes) throw tooLarge(maxBytes, `read ${total + value.length} bytes`);
        if (total + value.length > held.length) {
          const grown = new Uint8Array(Math.min(maxBytes, Math.max(total + value.length, 2 * held.length)));
          grown.set(held.subarray(0, total));
          held = grown;
        }
        held.set(value, total);
        total += value.length;
      }
    } catch (err) {
      await reader.cancel(err).catch(() => {});
      throw err;
    } finally {
      reader.releaseLock();
    }
  }
  const bytes = held.subarray(0, total);
  const actual = blake3(bytes, { dkLen: expected.length });
  if (!sameDigest(actual, expected)) return { ok: false, error: new IntegrityError(bytesToHex(expected), bytesToHex(actual)) };
  const init = { status: response.status, statusText: response.statusText, headers: response.headers };
  return { ok: true, response: new Response(response.body === null ? null : bytes, init) };
}
