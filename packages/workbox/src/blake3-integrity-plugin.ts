import { bytesToHex } from '@blake3-web/core';
import { hashStream, IntegrityError, verifyResponse } from '@blake3-web/stream';
import type { WorkboxPlugin } from 'workbox-core/types.js';
import { hashFromUrlPath, type ExpectedHashResolver } from './resolvers.js';
import { expectedBytes, sameDigest, verifyBody } from './verify-body.js';

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
  /** Told about every mismatch (for reporting; the plugin itself never logs). */
  onMismatch?: (info: { request: Request; error: IntegrityError }) => void;
};

/**
 * A Workbox plugin that lets only responses whose BLAKE3 matches be used and cached.
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
  readonly #onMismatch: Blake3IntegrityPluginOptions['onMismatch'];

  constructor(opts: Blake3IntegrityPluginOptions = {}) {
    if (typeof opts !== 'object' || opts === null) throw new TypeError('opts must be an object');
    const { expectedHash = hashFromUrlPath, verify = 'before-use', onMismatch } = opts;
    if (typeof expectedHash !== 'function') throw new TypeError('opts.expectedHash must be a function');
    if (verify !== 'before-use' && verify !== 'streaming') throw new RangeError(`opts.verify must be 'before-use' or 'streaming', got ${String(verify)}`);
    this.#expectedHash = expectedHash;
    this.#verify = verify;
    this.#onMismatch = onMismatch;
  }

  #expected(request: Request, response: Response): Uint8Array | undefined {
    const hash = this.#expectedHash(request, response);
    return hash === undefined ? undefined : expectedBytes(hash);
  }

  #mismatch(request: Request, error: unknown): void {
    if (error instanceof IntegrityError) this.#onMismatch?.({ request, error });
  }

  /** What the strategy uses, for the page and for the cache: a checked response or a network error. */
  fetchDidSucceed: WorkboxPlugin['fetchDidSucceed'] = async ({ request, response }) => {
    // Only a 200 carries the content the digest names; error statuses (and ranges, which need
    // Bao to verify) reach the page as they are, and cacheWillUpdate never caches them.
    if (response.status !== 200) return response;
    const expected = this.#expected(request, response);
    if (expected === undefined) return response;
    if (this.#verify === 'streaming') return verifyResponse(response, expected);
    const result = await verifyBody(response, expected);
    if (result.ok) return result.response;
    this.#mismatch(request, result.error);
    // Response.error() is what a failed fetch gives: the page's fetch() rejects with a TypeError.
    return Response.error();
  };

  /** Refuses (null) to cache anything but a complete, matching, successful body. */
  cacheWillUpdate: WorkboxPlugin['cacheWillUpdate'] = async ({ request, response }) => {
    if (response.type === 'error' || response.status !== 200) return null;
    const expected = this.#expected(request, response);
    if (expected === undefined) return response;
    try {
      const actual = await hashStream(response.clone().body ?? new Blob([]).stream(), { dkLen: expected.length });
      if (sameDigest(actual, expected)) return response;
      this.#mismatch(request, new IntegrityError(bytesToHex(expected), bytesToHex(actual)));
    } catch (err) {
      this.#mismatch(request, err);
    }
    return null;
  };
}

