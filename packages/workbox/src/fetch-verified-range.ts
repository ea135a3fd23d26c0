import { baoDecodeSlice, baoOutboardSlice, baoSliceBounds, fetchVerified, IntegrityError } from '@blake3-web/stream';
import { bytesToHex, CHUNK_LEN } from '@blake3-web/core';
import { expectedDigest, provesFinalLeaf, type ProvenTree } from '@blake3-web/stream/_internal';
import { anObject, anumber, aRequest } from './_assert.js';
import {
  anOutboardSource,
  maxOutboardOption,
  OutboardMismatch,
  provenOutboard,
  type CheckedOutboard,
  type OutboardSource,
} from './bao-outboard.js';
import type { ByteReader } from './byte-reader.js';
import { fetchOrGlobal, type Fetch } from './fetch-option.js';
import { parseRange, type RangeSpec } from './parse-range.js';
import { rangeBoundaries } from './range-boundaries.js';
import { contentFrom, UpstreamPieces, withRange } from './upstream-range.js';

export type VerifiedRangeOptions = {
  /** The Bao outboard encoding of the content (`bao encode --outboard`), or where to fetch it. */
  outboard: OutboardSource;
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
  /**
   * The most content bytes one request to the server asks for (default: no limit; a whole
   * number of KiB). A longer range, such as a media element's `bytes=N-`, is still answered in
   * full, but fetched that many bytes at a time, each piece only once the body has been read up
   * to it: a player that reads a little and seeks away leaves the rest of the file unasked. (A
   * 206 shorter than asked, which RFC 9110 allows, is taken for the end of the file by
   * WebKitGTK's player, so the answer always covers the whole range.)
   */
  maxRangeBytes?: number;
};

const DEFAULT_WINDOW = 256 * 1024;

/** The options of a verified range fetch but its outboard, checked: the `fetch` to use, the window, the largest outboard. */
export function rangeOptions(opts: Omit<VerifiedRangeOptions, 'outboard'>): {
  doFetch: Fetch;
  windowBytes: number;
  maxOutboardBytes: number;
  maxRangeBytes: number;
} {
  return {
    doFetch: fetchOrGlobal(opts.fetch),
    windowBytes: opts.windowBytes === undefined ? DEFAULT_WINDOW : wholeChunks(opts.windowBytes, 'opts.windowBytes'),
    maxOutboardBytes: maxOutboardOption(opts.maxOutboardBytes),
    maxRangeBytes: opts.maxRangeBytes === undefined ? Infinity : wholeChunks(opts.maxRangeBytes, 'opts.maxRangeBytes'),
  };
}

/** A byte count that is a positive multiple of the 1 KiB chunk (`name` is the option's). */
function wholeChunks(value: unknown, name: string): number {
  const n = anumber(value, name);
  if (n < CHUNK_LEN || n % CHUNK_LEN !== 0)
    throw new RangeError(`${name} must be a positive multiple of ${CHUNK_LEN}, got ${n}`);
  return n;
}

/**
 * Answers `request` with content verified against `hash` through its Bao outboard. With a single
 * `Range: bytes=...` header: a 206 whose bytes were checked, via Bao slices, before they were
 * released; the server is asked only for the range widened to whole 1 KiB chunks (at most
 * `maxRangeBytes` of them a request, each as the body is read). Without one
 * (or with a form this does not serve, such as several ranges): a 200 whose body is the whole
 * content, verified as it streams (`fetchVerified`).
 *
 * The outboard is proven whole against `hash` first (every parent; one given as bytes once per
 * array), so a mismatch after that is the content's. The total length in `Content-Range` is
 * proven by the content's final chunk (one extra request of at most 1 KiB): a header that claims
 * another length is the outboard's mismatch. A range past the end is a 416. A mismatch in the
 * outboard, the length or the first `windowBytes` of a range rejects with an `IntegrityError`;
 * later in a range, or in a whole-content response, it errors the body after the bytes verified
 * before it. A response that is not ok is returned as it is (nothing in it is the content,
 * nothing in it is checked).
 */
export async function fetchVerifiedRange(
  request: Request,
  hash: Uint8Array | string,
  opts: VerifiedRangeOptions,
): Promise<Response> {
  aRequest(request, 'request');
  const want = expectedDigest(hash, 'hash');
  anObject(opts, 'opts');
  const source = anOutboardSource(opts.outboard, 'opts.outboard');
  const options = rangeOptions(opts);
  const outboard = await provenOutboard(source, options.doFetch, want, options.maxOutboardBytes);
  return answerVerified(request, want, outboard, options);
}

/** `fetchVerifiedRange` with an outboard proven already (how `baoRangeHandler` uses the ones it keeps). */
export async function answerVerified(
  request: Request,
  hash: Uint8Array,
  outboard: CheckedOutboard,
  { doFetch, windowBytes, maxRangeBytes }: ReturnType<typeof rangeOptions>,
): Promise<Response> {
  const spec = parseRange(request.headers.get('range'));
  if (spec === undefined) {
    const upstream = await doFetch(withRange(request));
    if (!upstream.ok) return notContent(upstream, hash);
    if (upstream.status === 206) {
      await upstream.body?.cancel().catch(() => {});
      throw IntegrityError.corrupt(hash, 'the server answered a request without Range with a 206');
    }
    return fetchVerified(upstream.url || request.url, hash, { outboard: outboard.bytes, fetch: async () => upstream });
  }
  const total = await verifiedLength(request, hash, outboard.tree, doFetch);
  if (total instanceof Response) return total;
  return rangeResponse(request, hash, outboard.bytes, total, spec, { windowBytes, maxRangeBytes }, doFetch);
}

async function rangeResponse(
  request: Request,
  hash: Uint8Array,
  outboard: Uint8Array,
  total: number,
  spec: RangeSpec,
  { windowBytes, maxRangeBytes }: { windowBytes: number; maxRangeBytes: number },
  doFetch: Fetch,
): Promise<Response> {
  const boundaries = rangeBoundaries(spec, total);
  if (boundaries === undefined)
    return new Response(null, { status: 416, headers: { 'content-range': `bytes */${total}` } });
  const { first, last } = boundaries;
  const bounds = baoSliceBounds(total, first, last + 1 - first);
  const body = new UpstreamPieces(request, hash, bounds.start, bounds.end, maxRangeBytes, doFetch);
  const upstream = await body.open();
  if (!upstream.ok) return notContent(upstream, hash);
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

/** Verified content [from, to) in windows, read from `body` (content from `start`, up to `end`). */
async function* verifiedWindows(
  body: Pick<ByteReader, 'read' | 'cancel'>,
  hash: Uint8Array,
  outboard: Uint8Array,
  start: number,
  end: number,
  from: number,
  to: number,
  windowBytes: number,
): AsyncGenerator<Uint8Array, void, unknown> {
  try {
    for (let pos = start; pos < end; pos += windowBytes) {
      const len = Math.min(windowBytes, end - pos);
      const bytes = await body.read(len);
      if (bytes.length < len)
        throw IntegrityError.corrupt(
          hash,
          `the range response ended at content byte ${pos + bytes.length}, before byte ${end}`,
        );
      const verified = baoDecodeSlice(baoOutboardSlice(outboard, bytes, pos, pos, len), hash, pos, len);
      yield verified.subarray(Math.max(0, from - pos), Math.min(len, to - pos));
    }
  } finally {
    await body.cancel();
  }
}

/**
 * The content length, proven by the content's final chunk: the outboard's header alone only
 * claims it (the proven tree fixes the number of chunks, not the final one's length). The whole
 * final chunk is asked for, whatever the header claims, so that a header that lies about its
 * length is found out as the outboard's fault. The server's answer instead when it is not ok.
 */
async function verifiedLength(
  request: Request,
  hash: Uint8Array,
  tree: ProvenTree,
  doFetch: Fetch,
): Promise<number | Response> {
  // The root is the hash of the empty content: nothing to ask for.
  if (tree.size === 0) return 0;
  const start = (tree.leaves - 1) * CHUNK_LEN;
  const res = await doFetch(withRange(request, start, start + CHUNK_LEN - 1));
  if (!res.ok) return notContent(res, hash);
  const reader = await contentFrom(res, start, hash);
  // One byte more than a chunk: content that goes on past it is not the final chunk.
  const last = await reader.read(CHUNK_LEN + 1);
  await reader.cancel();
  if (!provesFinalLeaf(tree, last))
    throw IntegrityError.corrupt(
      hash,
      `the content's final chunk (${last.length} bytes from byte ${start}) does not match its Bao outboard, which claims ${tree.size} content bytes`,
    );
  const size = start + last.length;
  if (size !== tree.size)
    throw new OutboardMismatch(
      bytesToHex(hash),
      '',
      `the Bao outboard's header claims ${tree.size} content bytes; the content's final chunk proves ${size}`,
    );
  return size;
}

/**
 * An answer that is not ok passes through as it is (a 404 or a 503 does not claim to be the
 * content), unless it is opaque: its status and bytes cannot be read, so nothing says it is not.
 */
function notContent(response: Response, hash: Uint8Array): Response {
  if (response.status >= 300) return response;
  throw IntegrityError.corrupt(
    hash,
    `the server's answer (type ${response.type}, status ${response.status}) cannot be read, so it cannot be checked`,
  );
}
