import { aSmallLog, describe, isUint8Array } from '../_assert.js';
import { baoHash, MAX_BATCH_LOG, resolveLeafBytes } from './_options.js';
import { BaoVerifyStream, type BaoVerifyOpts } from './bao-verify-stream.js';

export interface FetchVerifiedOpts extends Omit<BaoVerifyOpts, 'outboard'> {
  /**
   * Where the outboard encoding is, or the outboard itself: `input` then serves the content.
   * Without it `input` serves the combined encoding.
   */
  outboard?: RequestInfo | URL | Uint8Array;
  /** Passed to `fetch` for `input` and a fetched outboard (headers, signal, credentials...). */
  init?: RequestInit;
  /** The `fetch` to use (default: the global one), e.g. a service worker's or a test's. */
  fetch?: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;
}

/**
 * Fetches Bao-encoded content and returns a `Response` whose body is the content, verified
 * against `hash` as it streams: reading it yields only verified bytes and fails with an
 * `IntegrityError` (browsers may rename it when read through `arrayBuffer()` and the like; a
 * reader gets it as is) at the first mismatch.
 *
 * The response keeps the status and headers of the content's response, without
 * `Content-Length` and `Content-Encoding`: the encoding's length is not the content's, and the
 * content's length is not trusted before its final chunk verifies (Bao spec, "Decoder"). A
 * response that is not ok (not 2xx) rejects with an Error whose `cause` is the response: its
 * body is not the content and cannot be verified.
 *
 * @example
 * ```ts
 * const res = await fetchVerified('/files/movie.bao', hash);
 * const res2 = await fetchVerified('/files/movie.mp4', hash, { outboard: '/files/movie.obao' });
 * ```
 */
export async function fetchVerified(
  input: RequestInfo | URL,
  hash: Uint8Array | string,
  opts: FetchVerifiedOpts = {},
): Promise<Response> {
  const want = baoHash(hash);
  if (typeof opts !== 'object' || opts === null) throw new TypeError(`opts must be an object, got ${describe(opts)}`);
  const doFetch = opts.fetch ?? globalThis.fetch;
  if (typeof doFetch !== 'function') throw new TypeError(`opts.fetch must be a function, got ${describe(doFetch)}`);
  const { outboard, init } = opts;
  const verifyOpts: BaoVerifyOpts = { chunkGroupLog: opts.chunkGroupLog, batchLog: opts.batchLog };
  let outboardBytes: Uint8Array | undefined;
  let outboardRequest: RequestInfo | URL | undefined;
  if (isUint8Array(outboard)) outboardBytes = outboard;
  else if (typeof outboard === 'string' || outboard instanceof URL || outboard instanceof Request)
    outboardRequest = outboard;
  else if (outboard !== undefined)
    throw new TypeError(`opts.outboard must be a URL, a Request or a Uint8Array, got ${describe(outboard)}`);
  // Checked now, not when the body is first read.
  resolveLeafBytes(verifyOpts);
  aSmallLog(verifyOpts.batchLog, 'opts.batchLog', MAX_BATCH_LOG);

  const settled = await Promise.allSettled([
    doFetch(input, init),
    outboardRequest === undefined ? undefined : doFetch(outboardRequest, init),
  ]);
  const failed =
    settled.find((s) => s.status === 'rejected') ??
    settled.find((s) => s.status === 'fulfilled' && s.value !== undefined && !s.value.ok);
  if (failed !== undefined) {
    // Neither body will be read: release both connections.
    for (const s of settled) if (s.status === 'fulfilled') await s.value?.body?.cancel().catch(() => {});
    if (failed.status === 'rejected') throw failed.reason;
    const res = failed.value!;
    throw new Error(`fetchVerified: ${res.url || 'the request'} answered ${res.status} ${res.statusText}`.trimEnd(), {
      cause: res,
    });
  }
  const response = (settled[0] as PromiseFulfilledResult<Response>).value;
  const outboardResponse = (settled[1] as PromiseFulfilledResult<Response | undefined>).value;
  const outboardSource = outboardResponse === undefined ? outboardBytes : (outboardResponse.body ?? new Uint8Array(0));
  const verifying = new BaoVerifyStream(want, { ...verifyOpts, outboard: outboardSource });
  const body = (response.body ?? emptyStream()).pipeThrough(verifying);
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  headers.delete('content-encoding');
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

function emptyStream(): ReadableStream<Uint8Array> {
  return new ReadableStream({ start: (c) => c.close() });
}
