import { constantTimeEqual } from '@blake3-web/core';
import { IntegrityError, verifyResponse } from '@blake3-web/stream';
import { digestMismatch, expectedDigest } from '@blake3-web/stream/_internal';
import type { PluginState, WorkboxPlugin } from 'workbox-core/types.js';
import { aFunction, anObject, anumber, oneOf } from './_assert.js';
import { isWholeContent206 } from './partial-content.js';
import { hashBody } from './hash-body.js';
import { hashFromUrlPath, type ExpectedHashResolver } from './resolvers.js';
import { DEFAULT_MEMORY_BYTES, VerifiedBodies } from './verified-bodies.js';
import { DEFAULT_MAX_BYTES, verifyBody } from './verify-body.js';

export type Blake3IntegrityPluginOptions = {
  /** Where the expected digest of a request comes from (default: the last URL path segment as hex). */
  expectedHash?: ExpectedHashResolver;
  /**
   * `'before-use'` (default): the body is read and checked before the page gets it, and a
   * mismatch reaches the page as a network error. `'streaming'`: the body flows to the page as it
   * arrives and errors at its end on a mismatch; for large responses that should not be held in
   * memory, at the price of the page seeing bytes before they are verified.
   */
  verify?: 'before-use' | 'streaming';
  /**
   * `'before-use'` only: the most bytes a body may have (default 64 MiB). A longer one is not
   * read further and fails (the page's fetch rejects).
   */
  maxBytes?: number;
  /**
   * The most bytes of bodies this worker verified that it holds in memory (default 16 MiB; 0
   * holds none). A cache hit whose digest it holds is answered from memory, without reading or
   * hashing the entry; any other hit is read and hashed before it is used (see the README).
   */
  memoryBytes?: number;
  /** Told about every mismatch (for reporting; the plugin itself never logs). */
  onMismatch?: (info: { request: Request; error: IntegrityError }) => void;
};

/** The cache keys a strategy used for this request, recorded for the digest lookup. */
type KeyState = PluginState & { blake3CacheKeys?: string[] };

/**
 * A Workbox plugin that lets only responses whose BLAKE3 matches be used and cached.
 *
 * For a request with an expected digest, every 2xx answer is checked (a body-less one as empty
 * content); a 206 is checked only when it holds the whole content of a range the page asked
 * for, and fails otherwise, as does an opaque answer, which cannot be read. Other statuses
 * (404, 503) reach the page as they are and are never cached: they do not claim to be the content.
 *
 * @example
 * ```ts
 * registerRoute(({ url }) => url.pathname.startsWith('/blobs/'),
 *   new CacheFirst({ cacheName: 'blobs', plugins: [new Blake3IntegrityPlugin()] }));
 * ```
 */
export class Blake3IntegrityPlugin implements WorkboxPlugin {
  readonly #expectedHash: ExpectedHashResolver;
  readonly #verify: 'before-use' | 'streaming';
  readonly #maxBytes: number;
  readonly #onMismatch: Blake3IntegrityPluginOptions['onMismatch'];
  readonly #verified: VerifiedBodies;

  constructor(opts: Blake3IntegrityPluginOptions = {}) {
    const {
      expectedHash = hashFromUrlPath,
      verify = 'before-use',
      maxBytes = DEFAULT_MAX_BYTES,
      memoryBytes = DEFAULT_MEMORY_BYTES,
      onMismatch,
    } = anObject(opts, 'opts') as Blake3IntegrityPluginOptions;
    this.#expectedHash = aFunction(expectedHash, 'opts.expectedHash');
    this.#verify = oneOf(verify, 'opts.verify', ['before-use', 'streaming']);
    this.#maxBytes = anumber(maxBytes, 'opts.maxBytes');
    this.#onMismatch = onMismatch === undefined ? undefined : aFunction(onMismatch, 'opts.onMismatch');
    this.#verified = new VerifiedBodies(anumber(memoryBytes, 'opts.memoryBytes'));
  }

  /**
   * The digest for the request and for every cache key the strategy mapped it to (a precache
   * route maps `/` to `/index.html`, `?utm_source=x` away, and so on). They must agree: a
   * request whose URL and cache key name different digests cannot be answered by either.
   */
  #expected(request: Request, response: Response, state: KeyState | undefined): Uint8Array | undefined {
    let found: { from: string; digest: Uint8Array } | undefined;
    for (const url of new Set([request.url, ...(state?.blake3CacheKeys ?? [])])) {
      const hash = this.#expectedHash(url === request.url ? request : new Request(url), response);
      if (hash === undefined) continue;
      const digest = expectedDigest(hash, 'the digest from expectedHash');
      if (found === undefined) found = { from: url, digest };
      else if (!constantTimeEqual(found.digest, digest))
        throw new RangeError(
          `expectedHash gives ${found.from} and ${url}, which answer the same request, different digests`,
        );
    }
    return found?.digest;
  }

  #mismatch(request: Request, error: unknown): void {
    if (error instanceof IntegrityError) this.#onMismatch?.({ request, error });
  }

  /** Refused without reading: reported, and a network error for the page. */
  #refuse(request: Request, expected: Uint8Array, why: string): Response {
    this.#mismatch(request, IntegrityError.corrupt(expected, why));
    return Response.error();
  }

  /**
   * Remembers the cache key a strategy uses for the request (`params.cacheKey` from a precache
   * route, or the key earlier plugins made), so the digest of the entry it stands for applies.
   */
  cacheKeyWillBeUsed: WorkboxPlugin['cacheKeyWillBeUsed'] = async ({ request, params, state }) => {
    if (state) {
      const keys = ((state as KeyState).blake3CacheKeys ??= []);
      const cacheKey: unknown = (params as { cacheKey?: unknown } | undefined)?.cacheKey;
      for (const key of [request.url, typeof cacheKey === 'string' ? cacheKey : undefined]) {
        if (key !== undefined && !keys.includes(key)) keys.push(key);
      }
    }
    return request;
  };

  /** What the strategy uses, for the page and for the cache: a checked response or a network error. */
  fetchDidSucceed: WorkboxPlugin['fetchDidSucceed'] = async ({ request, response, state }) => {
    const expected = this.#expected(request, response, state);
    if (expected === undefined) return response;
    if (response.type === 'opaque' || response.type === 'opaqueredirect') {
      return this.#refuse(
        request,
        expected,
        `an opaque response for ${request.url} cannot be read, so it cannot be checked (request it with CORS)`,
      );
    }
    // Error statuses do not claim to be the content: the page sees them as they are.
    if (response.status < 200 || response.status > 299) return response;
    if (response.status === 206 && !isWholeContent206(request, response)) {
      await response.body?.cancel().catch(() => {});
      return this.#refuse(
        request,
        expected,
        `a 206 with Content-Range ${JSON.stringify(response.headers.get('content-range'))} for ${request.headers.has('range') ? 'a range' : 'a request without Range'} cannot be checked against the digest of the whole content`,
      );
    }
    if (this.#verify === 'streaming') return verifyResponse(response, expected);
    const result = await verifyBody(response, expected, this.#maxBytes);
    if (result.ok) return result.response;
    this.#mismatch(request, result.error);
    // Response.error() is what a failed fetch gives: the page's fetch() rejects with a TypeError.
    return Response.error();
  };

  /**
   * Refuses (null) to cache anything but a complete, matching, successful body; a body that
   * matches and fits `memoryBytes` is held, so that its cache hits need no hashing.
   */
  cacheWillUpdate: WorkboxPlugin['cacheWillUpdate'] = async ({ request, response, state }) => {
    if (response.type === 'error' || response.status !== 200) return null;
    const expected = this.#expected(request, response, state);
    if (expected === undefined) return response;
    try {
      const { digest, kept } = await hashBody(response.clone().body, expected.length, this.#verified.maxBytes);
      const error = digestMismatch(digest, expected, false);
      if (!error) {
        if (kept) this.#verified.remember(expected, kept);
        return response;
      }
      this.#mismatch(request, error);
    } catch (err) {
      this.#mismatch(request, err);
    }
    return null;
  };

  /**
   * A cache hit, whoever wrote it (this plugin, page code, another worker) and whatever became of
   * it on disk: with a digest, it is answered from the body this worker holds for that digest, or
   * else read and hashed before it is used. One that does not match, or that this plugin would
   * never have stored (not a 200), is refused (null: the strategy goes on as for a miss) and
   * removed from its cache; one that cannot be read is refused.
   */
  cachedResponseWillBeUsed: WorkboxPlugin['cachedResponseWillBeUsed'] = async ({
    cacheName,
    request,
    cachedResponse,
    matchOptions,
    state,
  }) => {
    if (!cachedResponse) return cachedResponse;
    const expected = this.#expected(request, cachedResponse, state);
    if (expected === undefined) return cachedResponse;
    if (cachedResponse.status !== 200) {
      // Not awaited: cancelling one branch of a tee settles only once the other is cancelled too.
      void cachedResponse.body?.cancel().catch(() => {});
      this.#mismatch(
        request,
        IntegrityError.corrupt(
          expected,
          `the cached entry for ${request.url} has status ${cachedResponse.status} (${cachedResponse.type}): this plugin stores only 200s`,
        ),
      );
      await this.#drop(cacheName, request, matchOptions);
      return null;
    }
    const held = this.#verified.get(expected);
    if (held) {
      void cachedResponse.body?.cancel().catch(() => {});
      const headers = new Headers(cachedResponse.headers);
      if (headers.has('content-length')) headers.set('content-length', String(held.size));
      return new Response(held, { status: 200, statusText: cachedResponse.statusText, headers });
    }
    if (this.#verify === 'streaming') return verifyResponse(cachedResponse, expected);
    let result: Awaited<ReturnType<typeof verifyBody>>;
    try {
      result = await verifyBody(cachedResponse, expected, this.#maxBytes);
    } catch {
      // Unreadable or over maxBytes: not used, and left for the strategy's next write.
      return null;
    }
    if (result.ok) {
      this.#verified.remember(expected, result.bytes);
      return result.response;
    }
    this.#mismatch(request, result.error);
    await this.#drop(cacheName, request, matchOptions);
    return null;
  };

  /**
   * Removes an entry that is not the content, before the strategy goes on, so that its own write
   * of the answer from the network cannot be the one removed.
   */
  async #drop(cacheName: string, request: Request, matchOptions: CacheQueryOptions | undefined): Promise<void> {
    try {
      await (await caches.open(cacheName)).delete(request, matchOptions);
    } catch {
      // A cache that cannot be opened here keeps the entry; every hit of it is still refused.
    }
  }
}
