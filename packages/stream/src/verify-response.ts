import { blake3, type Blake3Opts } from '@blake3-web/core';
import { describe } from './_assert.js';
import { assertDigest, expectedDigest } from './_digest.js';
import { VerifyStream } from './verify-stream.js';

/**
 * A `Response` with the same status and headers whose body is checked against `expected` as it
 * streams: reading it fails when the content does not match. Reading `body` with a reader gives
 * the `IntegrityError` itself; browsers make `arrayBuffer()`, `text()` and the like reject with a
 * `TypeError` (Chromium, WebKit) or an `AbortError` (Firefox) instead.
 */
export function verifyResponse(
  response: Response,
  expected: Uint8Array | string,
  opts?: Omit<Blake3Opts, 'dkLen'>,
): Response {
  if (!(response instanceof Response)) throw new TypeError(`response must be a Response, got ${describe(response)}`);
  if (response.body === null) {
    // No body (204, HEAD) is empty content, which must match too; such a Response cannot carry a
    // stream that errors later, so the check happens now.
    const want = expectedDigest(expected);
    assertDigest(blake3(new Uint8Array(0), { ...opts, dkLen: want.length }), want, opts?.key !== undefined);
    return response;
  }
  const body = response.body.pipeThrough(new VerifyStream(expected, opts));
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
