/**
 * One range request to one source, its bytes verified group by group as they arrive. Nothing of
 * the response is believed but the bytes that verify: the status must be 206, `Content-Range`
 * must start where asked (and end there too unless the range is the open-ended final one), and
 * the body must hold exactly the bytes asked for, whatever `Content-Length` says.
 * @module
 */
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
  /**
   * Takes verified groups (`bytes` starts at group `first`) before the next read; what it
   * throws ends the request and is not the source's fault.
   */
  verified(first: number, bytes: Uint8Array): Promise<void>;
};

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
  headers.set('range', final ? `bytes=${start}-` : `bytes=${start}-${start + fixed - 1}`);
  const where = `bytes ${start}-${final ? '' : start + fixed - 1}`;
  const fault = (why: string, drop: boolean) => new SourceFault(`${where}: ${why}`, drop, why);
  let body: ReadableStreamDefaultReader<Uint8Array> | undefined;
  try {
    let response: Response;
    try {
      response = await guard.race(ctx.fetch(source.url, { headers, signal: guard.signal, cache: 'no-store' }));
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
    body = response.body.getReader();
    /** The most bytes the body may hold. */
    const limit = expected ?? most;
    const buffer = new Uint8Array(limit);
    let filled = 0;
    /** Bytes of `buffer` verified and handed on. */
    let checked = 0;
    const g = leaves.groupBytes;
    /** Whole groups end here at most: before the final group, which may be short. */
    const wholeLimit = final ? fixed : limit;
    const hand = async (firstGroup: number, bytes: Uint8Array, to: number): Promise<void> => {
      checked = to;
      guard.pause();
      try {
        await ctx.verified(firstGroup, bytes);
      } catch (err) {
        throw new NotTheSource(err);
      }
      guard.alive();
    };
    /** Verifies the whole groups that arrived and hands on those that match, up to a mismatch. */
    const verifyArrived = async (): Promise<void> => {
      const upTo = Math.min(wholeLimit, filled - (filled % g));
      if (upTo <= checked) return;
      const firstGroup = range.first + checked / g;
      const bytes = buffer.subarray(checked, upTo);
      const ok = leaves.verify(firstGroup, bytes);
      if (ok > 0) await hand(firstGroup, bytes.subarray(0, ok * g), checked + ok * g);
      if (ok < bytes.length / g) throw fault(`group ${firstGroup + ok} does not match the root`, true);
    };
    for (;;) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await guard.race(body.read());
      } catch (err) {
        throw asFault(err, ctx.signal, (why) => fault(why, false));
      }
      if (next.done) break;
      guard.alive();
      const chunk = next.value;
      const n = Math.min(chunk.length, limit - filled);
      buffer.set(chunk.subarray(0, n), filled);
      filled += n;
      await verifyArrived();
      if (n < chunk.length)
        throw fault(
          `sent more than the ${limit} bytes ${contentRange === null ? 'asked for' : 'of its Content-Range'}`,
          true,
        );
    }
    if (filled < (expected ?? fixed + 1))
      throw fault(`ended after ${filled} of ${expected ?? `at least ${fixed + 1}`} bytes`, false);
    if (!final) return undefined;
    const tail = buffer.subarray(fixed, filled);
    if (!leaves.verifyFinal(tail))
      throw fault(`group ${leaves.groups - 1} (the final one, ${tail.length} bytes) does not match the root`, true);
    await hand(leaves.groups - 1, tail, filled);
    return start + filled;
  } finally {
    guard.done();
    if (body) void body.cancel().catch(() => {});
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
