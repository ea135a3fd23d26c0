/**
 * The first ranges of a new download, asked while the outboard still arrives: from the size its
 * header claims, the ranges the download will plan first go out at once, and their bodies wait,
 * unread, until the outboard proves the root and the final group proves the size. Until then a
 * link that carries nothing but the outboard (and, on the other mirrors, nothing at all) sat idle
 * for its transfer and proof and the final group's round trip: 80-130 ms of a 6 s download of
 * 256 MiB through the 200 Mbit/s link model (packages/download/bench/browser-download.ts, its
 * `trace` part).
 *
 * Nothing is believed early: a response is read only through `fetchRange`, once the range is one
 * the proven tree plans, and from the source it was asked of; a range the plan does not hold, or
 * whose source was dropped meanwhile, is cancelled unread.
 * @module
 */
import { leafCount } from '@blake3-web/stream/_internal';
import { rangeHeader } from './_range-header.js';
import type { Source, SourcePool } from './_sources.js';

/** A range asked ahead: its groups, its source, and the response to come. */
export type AskedRange = {
  first: number;
  count: number;
  source: Source;
  response: Promise<Response>;
  /** Cancels the request (and its body, once it answered). */
  abort(reason?: unknown): void;
};

export class RangesAhead {
  readonly #asked = new Map<string, AskedRange>();

  /**
   * Asks the first `count` ranges of `perRange` groups of content the outboard's header claims
   * is `size` bytes (the final group apart), of sources `pool` picks.
   */
  ask(
    size: number,
    opts: { groupBytes: number; perRange: number; count: number; fetch: typeof fetch; headers: Headers },
    pool: SourcePool,
  ): void {
    const groups = leafCount(size, opts.groupBytes);
    const picked: Source[] = [];
    for (let first = 0, n = 0; n < opts.count && first < groups - 1; n++) {
      const count = Math.min(opts.perRange, groups - 1 - first);
      const source = pool.pick(new Set());
      if (!source) break;
      // Counted as in flight while picking, so that a strategy spreads them as it would ranges.
      source.inflight++;
      picked.push(source);
      const controller = new AbortController();
      const headers = new Headers(opts.headers);
      headers.set('range', rangeHeader({ first, count }, opts.groupBytes, false));
      const response = opts.fetch(source.url, { headers, signal: controller.signal, cache: 'no-store' });
      response.catch(() => {});
      const abort = (reason?: unknown) => {
        controller.abort(reason);
        void response.then((r) => r.body?.cancel().catch(() => {})).catch(() => {});
      };
      this.#asked.set(key({ first, count }), { first, count, source, response, abort });
      first += count;
    }
    for (const s of picked) s.inflight--;
  }

  /** The request asked ahead for `range`, if any (and not from a source dropped since), once. */
  take(range: { first: number; count: number; failedOn: ReadonlySet<Source> }): AskedRange | undefined {
    const k = key(range);
    const asked = this.#asked.get(k);
    if (!asked) return undefined;
    this.#asked.delete(k);
    if (!asked.source.dropped && !range.failedOn.has(asked.source)) return asked;
    asked.abort();
    return undefined;
  }

  /**
   * Once the final group has proven the size: each range asked that the plan holds is told
   * (`onAsked`), to be read or, if its source is dropped meanwhile, cancelled unread; any other,
   * asked on a header that lied, is cancelled now and never told.
   */
  keepPlanned(planned: readonly { first: number; count: number }[], onAsked: (asked: AskedRange) => void): void {
    const wanted = new Set(planned.map(key));
    for (const [k, asked] of this.#asked) {
      if (wanted.has(k)) onAsked(asked);
      else {
        asked.abort();
        this.#asked.delete(k);
      }
    }
  }

  /** Cancels every request not taken. */
  cancel(reason?: unknown): void {
    for (const asked of this.#asked.values()) asked.abort(reason);
    this.#asked.clear();
  }
}

const key = (range: { first: number; count: number }) => `${range.first}+${range.count}`;
