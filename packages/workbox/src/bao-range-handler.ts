import { IntegrityError } from '@blake3-web/stream';
import { expectedDigest } from '@blake3-web/stream/_internal';
import type { RouteHandlerCallback } from 'workbox-core/types.js';
import { aFunction, anObject, anumber } from './_assert.js';
import { anOutboardSource, outboardBytes } from './bao-outboard.js';
import { fetchVerifiedRange, rangeOptions, type VerifiedRangeOptions } from './fetch-verified-range.js';
import { hashFromUrlPath, type ExpectedHashResolver } from './resolvers.js';

export type BaoRangeHandlerOptions = Omit<VerifiedRangeOptions, 'outboard'> & {
  /** Where the Bao outboard of a request's content is, e.g. `<content URL>.obao`. */
  outboard: (request: Request) => RequestInfo | URL | Uint8Array;
  /** The expected BLAKE3 (32 bytes) of a request's content (default: the last URL path segment as hex). */
  expectedHash?: ExpectedHashResolver;
  /** Told about every mismatch (for reporting; the handler itself never logs). */
  onMismatch?: (info: { request: Request; error: IntegrityError }) => void;
  /** How many fetched outboards to keep in memory, by URL (default 16). */
  outboardCacheSize?: number;
};

/**
 * A Workbox route handler that serves content verified through its Bao outboard: range requests
 * get a 206 of checked bytes (see `fetchVerifiedRange`), others the whole content verified as it
 * streams. A mismatch reaches the page as a network error (`Response.error()`). Requests the
 * resolver has no digest for go to the network unchecked. Fetched outboards are kept in memory
 * (dropped again on any mismatch, in case the outboard was the bad part).
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
  const { doFetch, maxOutboardBytes } = rangeOptions(rest);
  const outboards = new Map<string, Promise<Uint8Array>>();

  const outboardFor = (where: RequestInfo | URL, hash: Uint8Array): Promise<Uint8Array> => {
    const key = keyOf(where);
    let cached = outboards.get(key);
    if (!cached) {
      cached = outboardBytes(where, doFetch, hash, maxOutboardBytes);
      cached.catch(() => outboards.delete(key));
      outboards.set(key, cached);
      // Oldest first: a Map keeps insertion order.
      while (outboards.size > outboardCacheSize) outboards.delete(outboards.keys().next().value!);
    }
    return cached;
  };

  return async ({ request }) => {
    const resolved = expectedHash(request);
    if (resolved === undefined) return doFetch(request);
    const hash = expectedDigest(resolved, 'the digest from expectedHash');
    const where = anOutboardSource(outboard(request), 'what opts.outboard returned');
    // The outboard may have been the bad part (or the content changed): fetch it again next time.
    const drop = () => {
      if (!(where instanceof Uint8Array)) outboards.delete(keyOf(where));
    };
    try {
      const response = await fetchVerifiedRange(request, hash, {
        ...rest,
        outboard: where instanceof Uint8Array ? where : await outboardFor(where, hash),
      });
      // A mismatch later in the body, after this returned, is a mismatch too.
      return response.ok
        ? onBodyError(response, (err) => {
            if (!(err instanceof IntegrityError)) return;
            drop();
            onMismatch?.({ request, error: err });
          })
        : response;
    } catch (err) {
      drop();
      if (!(err instanceof IntegrityError)) throw err;
      onMismatch?.({ request, error: err });
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

function keyOf(where: RequestInfo | URL): string {
  return where instanceof Request ? where.url : String(where);
}
