import { blake3 } from '@blake3-web/core';
import type { IntegrityError } from '@blake3-web/stream';
import { digestMismatch } from '@blake3-web/stream/_internal';
import { readChunks } from './read-chunks.js';

/**
 * The most a `'before-use'` check holds in memory by default: 64 MiB. It is 32 times what
 * workbox-build precaches by default (`maximumFileSizeToCacheInBytes`, 2 MiB), so assets fit
 * with room to spare, while an endless or oversized body fails long before it can exhaust a
 * service worker; larger content belongs to `verify: 'streaming'` or Bao ranges.
 */
export const DEFAULT_MAX_BYTES: number = 64 * 1024 * 1024;

/** The body outgrew `maxBytes`: it is not held, so it cannot be checked. */
export function tooLarge(maxBytes: number, got: string): RangeError {
  return new RangeError(`the response body exceeds opts.maxBytes (${maxBytes} bytes): ${got}`);
}

/**
 * Reads a whole body, at most `maxBytes` of it, and checks it. A match gives a fresh Response
 * with the same bytes, status and headers, and the bytes (the Response holds a copy of its own). Every chunk is copied into a buffer of this function's
 * own as it arrives, and that buffer is what is hashed and released, so the bytes released are
 * the bytes hashed even if the source reuses its buffers. A body longer than `maxBytes` is
 * cancelled and rejects with a RangeError.
 */
export async function verifyBody(
  response: Response,
  expected: Uint8Array,
  maxBytes: number,
): Promise<{ ok: true; response: Response; bytes: Uint8Array } | { ok: false; error: IntegrityError }> {
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
    await readChunks(response.body, (value) => {
      if (total + value.length > maxBytes) throw tooLarge(maxBytes, `read ${total + value.length} bytes`);
      if (total + value.length > held.length) {
        const grown = new Uint8Array(Math.min(maxBytes, Math.max(total + value.length, 2 * held.length)));
        grown.set(held.subarray(0, total));
        held = grown;
      }
      held.set(value, total);
      total += value.length;
    });
  }
  const bytes = held.subarray(0, total);
  const error = digestMismatch(blake3(bytes, { dkLen: expected.length }), expected, false);
  if (error) return { ok: false, error };
  const init = { status: response.status, statusText: response.statusText, headers: response.headers };
  return { ok: true, response: new Response(response.body === null ? null : bytes, init), bytes };
}
