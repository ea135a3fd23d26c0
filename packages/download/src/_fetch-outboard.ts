/**
 * The outboard, fetched once: its header says how long it must be (refused past
 * `maxOutboardBytes`), and exactly that many bytes are read, plus one to find an outboard that
 * goes on; never more, whatever the server sends or its `Content-Length` says.
 * @module
 */
import { HEADER_LEN } from '@blake3-web/stream/_internal';
import { LeafHashes, OutboardMismatch } from './_leaf-hashes.js';
import { SourceFault } from './_sources.js';
import { StallGuard } from './_stall-guard.js';
import { NotTheSource } from './_fetch-range.js';

export type OutboardContext = {
  root: Uint8Array;
  groupBytes: number;
  maxOutboardBytes: number;
  fetch: typeof fetch;
  headers: Headers;
  stallTimeout: number;
  signal: AbortSignal | undefined;
  /** Told the content size the header claims (within `maxOutboardBytes`), before the rest arrives. */
  onClaimed?(size: number): void;
};

/** The outboard at `url`, proven against the root; a SourceFault says what was wrong. */
export async function fetchOutboard(
  url: string,
  ctx: OutboardContext,
): Promise<{ leaves: LeafHashes; outboard: Uint8Array }> {
  const guard = new StallGuard(ctx.stallTimeout, ctx.signal);
  const fault = (why: string, drop = true) => new SourceFault(`outboard ${url}: ${why}`, drop);
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  try {
    let response: Response;
    try {
      response = await guard.race(ctx.fetch(url, { headers: ctx.headers, signal: guard.signal, cache: 'no-store' }));
    } catch (err) {
      if (ctx.signal?.aborted) throw new NotTheSource(ctx.signal.reason);
      throw fault(`failed: ${err instanceof Error ? err.message : String(err)}`, false);
    }
    guard.alive();
    if (response.status !== 200) {
      void response.body?.cancel().catch(() => {});
      throw fault(`answered ${response.status}`, false);
    }
    if (!response.body) throw fault('answered with no body');
    reader = response.body.getReader();
    let outboard = new Uint8Array(HEADER_LEN);
    let filled = 0;
    let want = HEADER_LEN;
    /** Whether the header was read and `want` is the whole outboard's length. */
    let sized = false;
    for (;;) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await guard.race(reader.read());
      } catch (err) {
        if (ctx.signal?.aborted) throw new NotTheSource(ctx.signal.reason);
        throw fault(`failed: ${err instanceof Error ? err.message : String(err)}`, false);
      }
      if (next.done) break;
      guard.alive();
      let chunk = next.value;
      while (chunk.length > 0) {
        if (sized && filled === want) throw fault(`goes on past the ${want} bytes its header calls for`);
        const n = Math.min(chunk.length, want - filled);
        outboard.set(chunk.subarray(0, n), filled);
        filled += n;
        chunk = chunk.subarray(n);
        if (!sized && filled === HEADER_LEN) {
          sized = true;
          let claimed: { size: number; outboardBytes: number };
          try {
            claimed = LeafHashes.claimedSize(outboard, ctx.groupBytes);
          } catch (err) {
            throw fault((err as Error).message.replace(/^the outboard /, ''));
          }
          if (claimed.outboardBytes > ctx.maxOutboardBytes)
            throw fault(
              `claims ${claimed.size} content bytes, whose ${claimed.outboardBytes}-byte outboard exceeds opts.maxOutboardBytes (${ctx.maxOutboardBytes})`,
            );
          want = claimed.outboardBytes;
          ctx.onClaimed?.(claimed.size);
          const whole = new Uint8Array(want);
          whole.set(outboard);
          outboard = whole;
        }
      }
    }
    if (filled < want) throw fault(`ended after ${filled} bytes; its header calls for ${want}`);
    try {
      return { leaves: LeafHashes.fromOutboard(outboard, ctx.root, ctx.groupBytes), outboard };
    } catch (err) {
      if (err instanceof OutboardMismatch) throw fault(err.message.replace(/^the outboard /, ''));
      throw err;
    }
  } finally {
    guard.done();
    if (reader) void reader.cancel().catch(() => {});
  }
}
