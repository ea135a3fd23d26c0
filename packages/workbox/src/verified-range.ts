import { bytesToHex, CHUNK_LEN } from '@blake3-web/core';
import { baoDecodeSlice, baoOutboardSize, baoOutboardSlice, baoSliceBounds, fetchVerified, IntegrityError } from '@blake3-web/stream';
import type { RouteHandlerCallback } from 'workbox-core/types.js';
import { hashFromUrlPath, type ExpectedHashResolver } from './resolvers.js';
import { expectedBytes } from './verify-body.js';

type Fetch = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;

export type VerifiedRangeOptions = {
  /** The Bao outboard encoding of the content (`bao encode --outboard`), or where to fetch it. */
  outboard: Uint8Array | RequestInfo | URL;
  /**
   * Bytes checked before any of them is released (default 256 KiB; a whole number of KiB).
   * A range up to this size is all or nothing; a longer one streams, window by window, and its
   * body errors at the first window that does not match.
   */
  windowBytes?: number;
  /** The `fetch` to use (default: the global one). */
  fetch?: Fetch;
  /**
   * The largest outboard fetched (default 64 MiB, the outboard of about 1 GiB of content). Only
   * as many bytes as the outboard's header calls for, plus one to detect trailing data, are
   * ever read; this bounds what a forged header can make the reader hold.
   */
  maxOutboardBytes?: number;
};

const DEFAULT_WINDOW = 256 * 1024;
const DEFAULT_MAX_OUTBOARD = 64 * 1024 * 1024;
/** The outboard's header: the content length, 8 bytes little-endian (Bao spec, "Encoding format"). */
const HEADER = 8;
const LEAF = CHUNK_LEN;

/** A single byte range, as the request asked for it (RFC 9110, section 14.1.2). */
type RangeSpec = { first: number; last?: number } | { suffix: number };

/** `bytes=a-b`, `bytes=a-` or `bytes=-n`; anything else (other units, several ranges) is undefined. */
export function parseRange(header: string | null): RangeSpec | undefined {
  const m = header === null ? null : /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') return { suffix: Number(m[2]) };
  const first = Number(m[1]);
  if (m[2] === '') return { first };
  const last = Number(m[2]);
  return last < first ? undefined : { first, last };
}

/**
 * Answers `request` with content verified against `hash` through its Bao outboard. With a single
 * `Range: bytes=...` header: a 206 whose bytes were checked, via Bao slices, before they were
 * released; the server is asked only for the range widened to whole 1 KiB chunks. Without one
 * (or with a form this does not serve, such as several ranges): a 200 whose body is the whole
 * content, verified as it streams (`fetchVerified`).
 *
 * The total length in `Content-Range` is the outboard's, checked through the final chunk (one
 * extra request of at most 1 KiB). A range past the end is a 416. A mismatch in the length or
 * in the first `windowBytes` of a range rejects with an `IntegrityError`; later in a range, or
 * in a whole-content response, it errors the body after the bytes verified before it. A response
 * that is not ok is returned as it is (nothing in it is the content, nothing in it is checked).
 */
export async function fetchVerifiedRange(request: Request, hash: Uint8Array | string, opts: VerifiedRangeOptions): Promise<Response> {
  if (!(request instanceof Request)) throw new TypeError('request must be a Request');
  const want = expectedBytes(hash);
  if (typeof opts !== 'object' || opts === null) throw new TypeError('opts must be an object');
  const doFetch: Fetch = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
  if (typeof doFetch !== 'function') throw new TypeError('opts.fetch must be a function');
  const windowBytes = opts.windowBytes ?? DEFAULT_WINDOW;
  if (!Number.isSafeInteger(windowBytes) || windowBytes < LEAF || windowBytes % LEAF !== 0) {
    throw new RangeError(`opts.windowBytes must be a positive multiple of ${LEAF}, got ${String(windowBytes)}`);
  }
  const maxOutboardBytes = maxOutboardOption(opts.maxOutboardBytes);
  const spec = parseRange(request.headers.get('range'));
  if (spec === undefined) {
    const outboard = await outboardBytes(opts.outboard, doFetch, want, maxOutboardBytes);
    const upstream = await doFetch(withRange(request));
    if (!upstream.ok) return notContent(upstream, want);
    if (upstream.status === 206) {
      await upstream.body?.cancel().catch(() => {});
      throw new IntegrityError(bytesToHex(want), '', 'the server answered a request without Range with a 206');
    }
    return fetchVerified(upstream.url || request.url, want, { outboard, fetch: async () => upstream });
  }
  const outboard = await outboardBytes(opts.outboard, doFetch, want, maxOutboardBytes);
  const total = await verifiedLength(request, want, outboard, doFetch);
  if (total instanceof Response) return total;
  return rangeResponse(request, want, outboard, total, spec, windowBytes, doFetch);
}

async function rangeResponse(request: Request, hash: Uint8Array, outboard: Uint8Array, total: number, spec: RangeSpec, windowBytes: number, doFetch: Fetch): Promise<Response> {
  const first = 'suffix' in spec ? Math.max(0, total - spec.suffix) : spec.first;
  const last = 'suffix' in spec ? total - 1 : Math.min(spec.last ?? total - 1, total - 1);
  if (first >= total || ('suffix' in spec && spec.suffix === 0)) {
    return new Response(null, { status: 416, headers: { 'content-range': `bytes */${total}` } });
  }
  const bounds = baoSliceBounds(total, first, last + 1 - first);
  const upstream = await doFetch(withRange(request, bounds.start, bounds.end - 1));
  if (!upstream.ok) return notContent(upstream, hash);
  const body = await contentFrom(upstream, bounds.start, hash);
  const windows = verifiedWindows(body, hash, outboard, bounds.start, bounds.end, first, last + 1, windowBytes);
  // The first window is checked before the response exists: a range up to one window is a
  // verified 206 or an error, never a 206 that fails later.
  const head = await windows.next();
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      if (!head.done) controller.enqueue(head.value);
      else controller.close();
    },
    async pull(controller) {
      try {
        const next = await windows.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      } catch (err) {
        controller.error(err);
      }
    },
    async cancel(reason) {
      await windows.throw(reason).catch(() => {});
    },
  });
  const headers = new Headers(upstream.headers);
  headers.delete('content-encoding');
  headers.set('content-range', `bytes ${first}-${last}/${total}`);
  headers.set('content-length', String(last + 1 - first));
  headers.set('accept-ranges', 'bytes');
  return new Response(stream, { status: 206, statusText: 'Partial Content', headers });
}

/** The body of a range response as a reader positioned at content byte `start`. */
async function contentFrom(response: Response, start: number, hash: Uint8Array): Promise<ByteReader> {
  const reader = new ByteReader(response.body);
  if (response.status === 206) {
    const m = /^bytes (\d+)-\d+\/(?:\d+|\*)$/.exec(response.headers.get('content-range') ?? '');
    if (!m || Number(m[1]) !== start) {
      await reader.cancel();
      throw new IntegrityError(bytesToHex(hash), '', `the server answered the range from byte ${start} with Content-Range ${JSON.stringify(response.headers.get('content-range'))}`);
    }
  } else await reader.skip(start); // a 200: the server ignored Range and sent everything
  return reader;
}

/** Verified content [from, to) in windows, read from `body` (content from `start`, up to `end`). */
async function* verifiedWindows(body: ByteReader, hash: Uint8Array, outboard: Uint8Array, start: number, end: number, from: number, to: number, windowBytes: number): AsyncGenerator<Uint8Array, void, unknown> {
  try {
    for (let pos = start; pos < end; pos += windowBytes) {
      const len = Math.min(windowBytes, end - pos);
      const bytes = await body.read(len);
      if (bytes.length < len) throw new IntegrityError(bytesToHex(hash), '', `the range response ended at content byte ${pos + bytes.length}, before byte ${end}`);
      const verified = baoDecodeSlice(baoOutboardSlice(outboard, bytes, pos, pos, len), hash, pos, len);
      yield verified.subarray(Math.max(0, from - pos), Math.min(len, to - pos));
    }
  } finally {
    await body.cancel();
  }
}

/**
 * The content length, proven by the final chunk: the outboard's header alone is unverified.
 * The server's answer instead when it is not ok.
 */
async function verifiedLength(request: Request, hash: Uint8Array, outboard: Uint8Array, doFetch: Fetch): Promise<number | Response> {
  const claimed = outboardContentLength(outboard, hash);
  const bounds = baoSliceBounds(claimed, claimed, 1);
  let last: Uint8Array = new Uint8Array(0);
  if (bounds.end > bounds.start) {
    const res = await doFetch(withRange(request, bounds.start, bounds.end - 1));
    if (!res.ok) return notContent(res, hash);
    const reader = await contentFrom(res, bounds.start, hash);
    last = await reader.read(bounds.end - bounds.start);
    await reader.cancel();
    if (last.length < bounds.end - bounds.start) {
      throw new IntegrityError(bytesToHex(hash), '', `the content ended at byte ${bounds.start + last.length}, before the ${claimed} bytes its Bao outboard claims`);
    }
  }
  // Throws an IntegrityError unless the final chunk, and with it the length, matches.
  baoDecodeSlice(baoOutboardSlice(outboard, last, bounds.start, claimed, 1), hash, claimed, 1);
  return claimed;
}

/** The length an outboard claims, if its size fits it; it arrived from the network, so a bad one is an IntegrityError. */
function outboardContentLength(outboard: Uint8Array, hash: Uint8Array): number {
  const bad = (why: string) => new IntegrityError(bytesToHex(hash), '', `the Bao outboard ${why}`);
  if (outboard.length < 8) throw bad(`has ${outboard.length} bytes, less than its 8-byte length header`);
  const claimed = new DataView(outboard.buffer, outboard.byteOffset, 8).getBigUint64(0, true);
  if (claimed > BigInt(Number.MAX_SAFE_INTEGER)) throw bad(`claims ${claimed} content bytes, more than 2^53 - 1`);
  const len = Number(claimed);
  const size = baoOutboardSize(len);
  if (outboard.length !== size) throw bad(`claims ${len} content bytes, which needs ${size} outboard bytes; it has ${outboard.length}`);
  return len;
}

async function outboardBytes(outboard: VerifiedRangeOptions['outboard'], doFetch: Fetch, hash: Uint8Array, maxBytes: number): Promise<Uint8Array> {
  if (outboard instanceof Uint8Array) return outboard;
  if (typeof outboard !== 'string' && !(outboard instanceof URL) && !(outboard instanceof Request)) {
    throw new TypeError(`opts.outboard must be a Uint8Array, a URL or a Request, got ${outboard === null ? 'null' : typeof outboard}`);
  }
  const res = await doFetch(outboard);
  if (!res.ok) {
    await res.body?.cancel().catch(() => {});
    throw new Error(`the Bao outboard ${res.url || String(outboard)} answered ${res.status} ${res.statusText}`.trimEnd(), { cause: res });
  }
  return readOutboard(new ByteReader(res.body), hash, maxBytes);
}

function maxOutboardOption(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_OUTBOARD;
  if (!Number.isSafeInteger(value) || value < HEADER) throw new RangeError(`opts.maxOutboardBytes must be an integer of at least ${HEADER}, got ${String(value)}`);
  return value;
}

/**
 * Reads an outboard body: its header, then exactly the size that header calls for, then one
 * more byte, which must not be there. Never more, whatever the server sends.
 */
async function readOutboard(body: ByteReader, hash: Uint8Array, maxBytes: number): Promise<Uint8Array> {
  const bad = (why: string) => new IntegrityError(bytesToHex(hash), '', `the Bao outboard ${why}`);
  try {
    const header = await body.read(HEADER);
    if (header.length < HEADER) throw bad(`has ${header.length} bytes, less than its ${HEADER}-byte length header`);
    const claimed = new DataView(header.buffer, header.byteOffset, HEADER).getBigUint64(0, true);
    if (claimed > BigInt(Number.MAX_SAFE_INTEGER)) throw bad(`claims ${claimed} content bytes, more than 2^53 - 1`);
    const size = baoOutboardSize(Number(claimed));
    if (size > maxBytes) throw new RangeError(`the Bao outboard claims ${claimed} content bytes, whose ${size}-byte outboard exceeds opts.maxOutboardBytes (${maxBytes})`);
    const outboard = new Uint8Array(size);
    outboard.set(header);
    const rest = await body.read(size - HEADER + 1);
    if (rest.length < size - HEADER) throw bad(`ended after ${HEADER + rest.length} bytes; its header calls for ${size}`);
    if (rest.length > size - HEADER) throw bad(`goes on past the ${size} bytes its header calls for`);
    outboard.set(rest, HEADER);
    return outboard;
  } finally {
    await body.cancel();
  }
}

/**
 * An answer that is not ok passes through as it is (a 404 or a 503 does not claim to be the
 * content), unless it is opaque: its status and bytes cannot be read, so nothing says it is not.
 */
function notContent(response: Response, hash: Uint8Array): Response {
  if (response.status >= 300) return response;
  throw new IntegrityError(bytesToHex(hash), '', `the server's answer (type ${response.type}, status ${response.status}) cannot be read, so it cannot be checked`);
}

/** `request` asking for content bytes first..last, or with no Range header when `first` is omitted. */
function withRange(request: Request, first?: number, last?: number): Request {
  const headers = new Headers(request.headers);
  if (first === undefined) headers.delete('range');
  else headers.set('range', `bytes=${first}-${last}`);
  return new Request(request.url, { headers, credentials: request.credentials, signal: request.signal });
}

/** Exact-length reads from a body stream, without `for await` (WebKit has none over streams). */
class ByteReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  #pending: Uint8Array = new Uint8Array(0);

  constructor(body: ReadableStream<Uint8Array> | null) {
    this.#reader = body?.getReader();
  }

  /** `n` bytes, or fewer if the body ends first. */
  async read(n: number): Promise<Uint8Array> {
    const out = new Uint8Array(n);
    let filled = Math.min(n, this.#pending.length);
    out.set(this.#pending.subarray(0, filled));
    this.#pending = this.#pending.subarray(filled);
    while (filled < n && this.#reader) {
      const { done, value } = await this.#reader.read();
      if (done) return out.subarray(0, filled);
      const take = Math.min(n - filled, value.length);
      out.set(value.subarray(0, take), filled);
      filled += take;
      this.#pending = value.subarray(take);
    }
    return out.subarray(0, filled);
  }

  async skip(n: number): Promise<void> {
    while (n > 0) {
      const got = await this.read(Math.min(n, 1 << 20));
      if (got.length === 0) return;
      n -= got.length;
    }
  }

  async cancel(): Promise<void> {
    await this.#reader?.cancel().catch(() => {});
  }
}

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
  if (typeof opts !== 'object' || opts === null) throw new TypeError('opts must be an object');
  const { outboard, expectedHash = hashFromUrlPath, onMismatch, outboardCacheSize = 16, ...rest } = opts;
  if (typeof outboard !== 'function') throw new TypeError('opts.outboard must be a function of the request');
  if (typeof expectedHash !== 'function') throw new TypeError('opts.expectedHash must be a function');
  if (!Number.isSafeInteger(outboardCacheSize) || outboardCacheSize < 0) throw new RangeError(`opts.outboardCacheSize must be a non-negative integer, got ${String(outboardCacheSize)}`);
  const doFetch: Fetch = rest.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const maxOutboardBytes = maxOutboardOption(rest.maxOutboardBytes);
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
    const hash = expectedBytes(resolved);
    const where = outboard(request);
    // The outboard may have been the bad part (or the content changed): fetch it again next time.
    const drop = () => {
      if (!(where instanceof Uint8Array)) outboards.delete(keyOf(where));
    };
    try {
      const response = await fetchVerifiedRange(request, hash, { ...rest, outboard: where instanceof Uint8Array ? where : await outboardFor(where, hash) });
      // A mismatch later in the body, after this returned, is a mismatch too.
      return response.ok ? onBodyError(response, (err) => {
        if (!(err instanceof IntegrityError)) return;
        drop();
        onMismatch?.({ request, error: err });
      }) : response;
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
