import { IntegrityError } from '@blake3-web/stream';
import { expectedDigest } from '@blake3-web/stream/_internal';
import { bytesToHex } from '@blake3-web/core';
import type { RouteHandlerCallback } from 'workbox-core/types.js';
import { aFunction, anObject, anumber } from './_assert.js';
import {
  anOutboardSource,
  checkOutboard,
  OutboardMismatch,
  provenOutboard,
  type CheckedOutboard,
  type OutboardSource,
} from './bao-outboard.js';
import { answerVerified, rangeOptions, type VerifiedRangeOptions } from './fetch-verified-range.js';
import { hashFromUrlPath, type ExpectedHashResolver } from './resolvers.js';

export type BaoRangeHandlerOptions = Omit<VerifiedRangeOptions, 'outboard'> & {
  /** Where the Bao outboard of a request's content is, e.g. `<content URL>.obao`. */
  outboard: (request: Request) => RequestInfo | URL | Uint8Array;
  /** The expected BLAKE3 (32 bytes) of a request's content (default: the last URL path segment as hex). */
  expectedHash?: ExpectedHashResolver;
  /**
   * Told about every mismatch (for reporting; the handler itself never logs), and whose it is:
   * the `'content'`'s (the outboard proved the hash, the bytes served do not match it) or the
   * `'outboard'`'s (it does not prove the hash, or its header claims another length).
   */
  onMismatch?: (info: { request: Request; error: IntegrityError; part: 'content' | 'outboard' }) => void;
  /** How many fetched outboards to keep in memory, by URL and hash (default 16). */
  outboardCacheSize?: number;
};

/**
 * A Workbox route handler that serves content verified through its Bao outboard: range requests
 * get a 206 of checked bytes (see `fetchVerifiedRange`), others the whole content verified as it
 * streams. A mismatch reaches the page as a network error (`Response.error()`). Requests the
 * resolver has no digest for go to the network unchecked.
 *
 * An outboard is fetched once and proven whole against the hash before any range uses it, then
 * kept in memory (the `outboardCacheSize` most recent). A mismatch after that is the content's:
 * the outboard stays, so a media element asking again and again for a refused range costs that
 * range, never the outboard again. An outboard that does not prove the hash (or whose header
 * claims a length the content's final chunk does not have) is refused at once and stays
 * refused while it is kept: fetching it again would give the same bytes. One that could not be
 * fetched (a network error, a status that is not ok) is asked for again next time.
 *
 * @example
 * ```ts
 * registerRoute(({ url }) => url.pathname.startsWith('/media/'),
 *   baoRangeHandler({ outboard: (request) => `${request.url}.obao` }));
 * ```
 */
export function baoRangeHandler(opts: BaoRangeHandlerOptions): RouteHandlerCallback {
  const {
    outboard,
    expectedHash = hashFromUrlPath,
    onMismatch,
    outboardCacheSize = 16,
    ...rest
  } = anObject(opts, 'opts') as BaoRangeHandlerOptions;
  aFunction(outboard, 'opts.outboard');
  aFunction(expectedHash, 'opts.expectedHash');
  if (onMismatch !== undefined) aFunction(onMismatch, 'opts.onMismatch');
  anumber(outboardCacheSize, 'opts.outboardCacheSize');
  // Checked now, at the boundary, rather than at the first request.
  const options = rangeOptions(rest);
  const outboards = new Map<string, Promise<CheckedOutboard>>();

  const keep = (key: string, entry: Promise<CheckedOutboard>): void => {
    entry.catch(() => {}); // read by the requests that use it
    outboards.delete(key);
    outboards.set(key, entry);
    // Oldest first: a Map keeps insertion order.
    while (outboards.size > outboardCacheSize) outboards.delete(outboards.keys().next().value!);
  };

  const outboardFor = (where: OutboardSource, hash: Uint8Array): Promise<CheckedOutboard> => {
    if (where instanceof Uint8Array) return Promise.resolve().then(() => checkOutboard(where, hash, true));
    const key = keyOf(where, hash);
    let cached = outboards.get(key);
    if (!cached) {
      const entry = provenOutboard(where, options.doFetch, hash, options.maxOutboardBytes);
      entry.catch((err: unknown) => {
        if (!(err instanceof OutboardMismatch) && outboards.get(key) === entry) outboards.delete(key);
      });
      keep(key, entry);
      cached = entry;
    }
    return cached;
  };

  return async ({ request }) => {
    const resolved = expectedHash(request);
    if (resolved === undefined) return options.doFetch(request);
    const hash = expectedDigest(resolved, 'the digest from expectedHash');
    const where = anOutboardSource(outboard(request), 'what opts.outboard returned');
    /** Reports a mismatch, refusing the outboard when it is the outboard's; false for other errors. */
    const mismatch = (error: unknown): boolean => {
      if (!(error instanceof IntegrityError)) return false;
      const part = error instanceof OutboardMismatch ? 'outboard' : 'content';
      if (part === 'outboard' && !(where instanceof Uint8Array)) keep(keyOf(where, hash), Promise.reject(error));
      onMismatch?.({ request, error, part });
      return true;
    };
    try {
      const response = await answerVerified(request, hash, await outboardFor(where, hash), options);
      // A mismatch later in the body, after this returned, is a mismatch too.
      return response.ok ? onBodyError(response, mismatch) : response;
    } catch (err) {
      if (!mismatch(err)) throw err;
      return Response.error();
    }
  };
}

/** The same response, calling `onError` when reading its body fails (the stream errors with it still). */
function onBodyError(response: Response, onError: (err: unknown) => void): Response {
  if (response.body === null) return response;
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (err) {
        onError(err);
        controller.error(err);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

function keyOf(where: RequestInfo | URL, hash: Uint8Array): string {
  return `${bytesToHex(hash)} ${where instanceof Request ? where.url : String(where)}`;
}
