/**
 * One range request to one source, its bytes verified group by group as they arrive. Nothing of
 * the response is believed but the bytes that verify: the status must be 206, `Content-Range`
 * must start where asked (and end there too unless the range is the open-ended final one), and
 * the body must hold exactly the bytes asked for, whatever `Content-Length` says.
 * @module
 */
import type { BatchBuffers } from './_batch-buffers.js';
import { rangeHeader } from './_range-header.js';
import type { AskedRange } from './_ranges-ahead.js';
import { BodyReader } from './_body-reader.js';
import type { LeafHashes } from './_leaf-hashes.js';
import { SourceFault, type Source } from './_sources.js';
import { StallGuard } from './_stall-guard.js';

export type RangeRequest = {
  /** First group. */
  first: number;
  /** Groups asked for. */
  count: number;
};

export type RangeContext = {
  leaves: LeafHashes;
  fetch: typeof fetch;
  headers: Headers;
  stallTimeout: number;
  signal: AbortSignal | undefined;
  /** Where the request takes the buffer it reads into, of `batchBytes(leaves.groupBytes)` bytes. */
  buffers: BatchBuffers;
  /**
   * Takes verified groups (`bytes` starts at group `first`) before the next read, and holds
   * nothing of them once settled: their buffer is read into again. What it throws ends the
   * request and is not the source's fault.
   */
  verified(first: number, bytes: Uint8Array): Promise<void>;
  /** The request, when it was asked ahead (`_ranges-ahead.ts`) of this source for this range. */
  asked?: AskedRange;
};

/**
 * Bytes read before a batch of groups is verified and handed on: one hashing call for many of
 * the network's small chunks (and fewer awaits and store writes), small enough that a range's
 * groups are stored as it goes and memory stays a few batches per request.
 */
export const BATCH_BYTES: number = 256 * 1024;

/** Bytes per batch for groups of `groupBytes`: whole groups, one at least. */
export const batchBytes = (groupBytes: number): number =>
  Math.max(groupBytes, BATCH_BYTES - (BATCH_BYTES % groupBytes));

/** The failure of something other than the source (the store, an abort): not a fault of it. */
export class NotTheSource extends Error {
  readonly error: unknown;
  constructor(error: unknown) {
    super('not the source');
    this.error = error;
  }
}

/**
 * Fetches groups [first, first + count) from `source`. When they include the final group, the
 * request is open-ended and the final group may have any length the tree allows (see
 * `LeafHashes.verifyFinal`); returns the content size the final group proved, or undefined.
 */
export async function fetchRange(source: Source, range: RangeRequest, ctx: RangeContext): Promise<number | undefined> {
  const { leaves } = ctx;
  const start = range.first * leaves.groupBytes;
  const last = range.first + range.count - 1;
  const final = last === leaves.groups - 1;
  // Bytes before the final group, and the most the range can hold.
  const fixed = final ? (leaves.groups - 1) * leaves.groupBytes - start : range.count * leaves.groupBytes;
  const most = final ? fixed + leaves.groupBytes : fixed;
  const guard = new StallGuard(ctx.stallTimeout, ctx.signal);
  const headers = new Headers(ctx.headers);
  headers.set('range', rangeHeader(range, leaves.groupBytes, final));
  const where = `bytes ${start}-${final ? '' : start + fixed - 1}`;
  const fault = (why: string, drop: boolean) => new SourceFault(`${where}: ${why}`, drop, why);
  let body: BodyReader | undefined;
  /** The buffer the body reads into (each BYOB read hands it back as another ArrayBuffer). */
  let buffer: ArrayBuffer | undefined;
  const { asked } = ctx;
  const abortAsked = () => asked!.abort(guard.signal.reason);
  try {
    let response: Response;
    try {
      if (asked) {
        if (guard.signal.aborted) abortAsked();
        else guard.signal.addEventListener('abort', abortAsked, { once: true });
      }
      response = await guard.race(
        asked?.response ?? ctx.fetch(source.url, { headers, signal: guard.signal, cache: 'no-store' }),
      );
    } catch (err) {
      throw asFault(err, ctx.signal, (why) => fault(why, false));
    }
    guard.alive();
    if (response.status !== 206) {
      void response.body?.cancel().catch(() => {});
      // 5xx and 429 may pass; anything else says this source will not serve this range.
      const transient = response.status >= 500 || response.status === 429 || response.status === 408;
      throw fault(
        `answered ${response.status}${response.status === 200 ? ' (the whole content, not the range)' : ''}`,
        !transient,
      );
    }
    // A cross-origin response hides Content-Range unless the server exposes it: then the bytes
    // alone decide (exactly those asked for, or for the final range up to one group past the
    // whole groups), as they do anyway.
    const contentRange = response.headers.get('content-range');
    let expected: number | undefined;
    if (contentRange !== null) {
      const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(contentRange);
      const rangeFirst = m ? Number(m[1]) : NaN;
      const rangeLast = m ? Number(m[2]) : NaN;
      expected = rangeLast - rangeFirst + 1;
      if (
        !m ||
        rangeFirst !== start ||
        rangeLast < rangeFirst ||
        (!final && rangeLast !== start + fixed - 1) ||
        expected > most ||
        (final && expected <= fixed)
      ) {
        void response.body?.cancel().catch(() => {});
        throw fault(`answered with Content-Range ${JSON.stringify(contentRange)}`, true);
      }
    } else if (!final) expected = fixed;
    if (!response.body) throw fault('answered 206 with no body', true);
    body = new BodyReader(response.body, guard);
    buffer = ctx.buffers.take();
    /** The most bytes the body may hold. */
    const limit = expected ?? most;
    const g = leaves.groupBytes;
    /** Whole groups end here at most: before the final group, which may be short. */
    const wholeLimit = final ? fixed : limit;
    const batch = buffer.byteLength;
    const hand = async (firstGroup: number, bytes: Uint8Array): Promise<void> => {
      guard.pause();
      try {
        await ctx.verified(firstGroup, bytes);
      } catch (err) {
        throw new NotTheSource(err);
      }
      guard.alive();
    };
    /** Body bytes received (and their whole groups verified and handed on). */
    let received = 0;
    while (received < wholeLimit) {
      const want = Math.min(batch, wholeLimit - received);
      const { bytes, n, error } = await body.fill(new Uint8Array(buffer, 0, want));
      buffer = bytes.buffer as ArrayBuffer;
      // The whole groups that arrived are verified even when the body then failed, so that a
      // source that sends a bad group is refused for it whatever it does next.
      const whole = n - (n % g);
      const firstGroup = range.first + received / g;
      const ok = whole > 0 ? leaves.verify(firstGroup, bytes.subarray(0, whole)) : 0;
      if (ok > 0) await hand(firstGroup, bytes.subarray(0, ok * g));
      if (ok * g < whole) throw fault(`group ${firstGroup + ok} does not match the root`, true);
      received += n;
      if (error) throw asFault(error, ctx.signal, (why) => fault(why, false));
      if (n < want) break;
    }
    let tail: Uint8Array | undefined;
    if (final && received === fixed) {
      const { bytes, n, error } = await body.fill(new Uint8Array(buffer, 0, limit - fixed));
      buffer = bytes.buffer as ArrayBuffer;
      if (error) throw asFault(error, ctx.signal, (why) => fault(why, false));
      received += n;
      tail = bytes.subarray(0, n);
    }
    if (received === limit) {
      let more: boolean;
      try {
        more = await body.more();
      } catch (err) {
        throw asFault(err, ctx.signal, (why) => fault(why, false));
      }
      if (more)
        throw fault(
          `sent more than the ${limit} bytes ${contentRange === null ? 'asked for' : 'of its Content-Range'}`,
          true,
        );
    }
    if (received < (expected ?? fixed + 1))
      throw fault(`ended after ${received} of ${expected ?? `at least ${fixed + 1}`} bytes`, false);
    if (!final || !tail) return undefined;
    if (!leaves.verifyFinal(tail))
      throw fault(`group ${leaves.groups - 1} (the final one, ${tail.length} bytes) does not match the root`, true);
    await hand(leaves.groups - 1, tail);
    return start + received;
  } finally {
    guard.done();
    guard.signal.removeEventListener('abort', abortAsked);
    body?.cancel();
    // Every hand has settled; a read still pending holds a detached buffer, which is dropped.
    if (buffer) ctx.buffers.give(buffer);
  }
}

/** A failed fetch or read as the source's fault, unless the download was aborted. */
function asFault(err: unknown, signal: AbortSignal | undefined, fault: (why: string) => SourceFault): unknown {
  if (signal?.aborted) return new NotTheSource(signal.reason);
  if (err instanceof SourceFault) return fault(err.message);
  const message =
    err instanceof Error
      ? err.cause instanceof Error
        ? `${err.message}: ${err.cause.message}`
        : err.message
      : String(err);
  return fault(`failed: ${message}`);
}
