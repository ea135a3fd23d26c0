/**
 * One download, end to end: the outboard (kept in the store, given, or fetched from the sources
 * in turn until one proves the root), the groups the store holds (checked again), the final
 * group (which proves the size to the byte), then the missing groups as ranges, `concurrency` at
 * a time, each to the source the strategy picks. A range that fails part way keeps the groups
 * that verified and goes back to the queue for another source. Every request is bounded by the
 * stall timeout and every source by its faults, so the download ends: with every group stored,
 * or with an error.
 * @module
 */
import { ready } from '@blake3-web/core';
import { writeHeader } from '@blake3-web/stream/_internal';
import { resolveOpts, resolveSources, type DownloadProgress, type ResolvedOpts } from './download-options.js';
import { DownloadError, type SourceFailure } from './errors.js';
import { fetchOutboard } from './_fetch-outboard.js';
import { BatchBuffers } from './_batch-buffers.js';
import { batchBytes, fetchRange, NotTheSource, type RangeRequest } from './_fetch-range.js';
import { LeafHashes, OutboardMismatch } from './_leaf-hashes.js';
import { RangesAhead, type AskedRange } from './_ranges-ahead.js';
import { MAX_STRIKES, SourceFault, SourcePool, type Source } from './_sources.js';
import type { DownloadStore, GroupRun, StoredContent } from './store.js';
import { groupLen, merge, plan, recheck, type Range } from './_group-runs.js';

/** Where verified bytes go besides the store, and how far ahead ranges may start. */
export type Delivery = {
  /** The store when `opts.store` is absent. */
  defaultStore(): DownloadStore;
  /**
   * The download's store is open and holds `runs` (checked again), before any group is fetched;
   * called again with no runs if the store is reopened (a header that lied about the size).
   */
  opened?(info: { runs: readonly GroupRun[]; stored: StoredContent; leaves: LeafHashes; opts: ResolvedOpts }): void;
  /** Verified groups, once stored (`bytes` starts at group `first`; its buffer is read into again after the call). */
  verified?(first: number, bytes: Uint8Array): void;
  /** Whether a range from group `first` may start now; `wake` resolves when that may change. */
  mayStart?(first: number): boolean;
  wake?(): Promise<void>;
  /** Ends the download as `opts.signal` does (a stream's cancel). */
  signal?: AbortSignal;
};

export type Finished = { leaves: LeafHashes; stored: StoredContent; opts: ResolvedOpts };

/** Least time between two progress reports. */
const PROGRESS_MS = 50;

/** Checks the arguments now (a TypeError or RangeError), and returns the download to run. */
export function prepare(sources: unknown, opts: unknown, delivery?: Delivery): () => Promise<Finished> {
  const resolved = resolveOpts(opts);
  const list = resolveSources(sources);
  return () => run(new SourcePool(list, resolved.strategy), resolved, delivery);
}

async function run(pool: SourcePool, opts: ResolvedOpts, delivery: Delivery | undefined): Promise<Finished> {
  const stop = new AbortController();
  const outer = opts.signal;
  const onAbort = () => stop.abort(outer!.reason);
  const onCancel = () => stop.abort(delivery!.signal!.reason);
  if (outer?.aborted) throw outer.reason;
  if (delivery?.signal?.aborted) throw delivery.signal.reason;
  outer?.addEventListener('abort', onAbort, { once: true });
  delivery?.signal?.addEventListener('abort', onCancel, { once: true });
  const extraFailures: SourceFailure[] = [];
  const failures = () => [...pool.sources.map((s) => s.failure()), ...extraFailures];
  const fail = (why: string) => new DownloadError(opts.rootHex, why, failures());
  const signal = stop.signal;
  const stopped = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  const store = opts.store ?? delivery?.defaultStore();
  let stored: StoredContent | undefined;
  // Where the SIMD kernel compiles asynchronously (Chromium's main thread), the groups would
  // hash on the JavaScript kernel until it is ready: it compiles while the outboard arrives.
  const kernel = ready();
  /** The first ranges of a download the store does not know, asked while the outboard arrives. */
  let ahead: RangesAhead | undefined;
  try {
    // The outboard: kept from before, given, or fetched.
    let leaves: LeafHashes | undefined;
    let outboard: Uint8Array | undefined;
    if (opts.outboard instanceof Uint8Array) {
      try {
        leaves = LeafHashes.fromOutboard(opts.outboard, opts.root, opts.groupBytes);
        outboard = opts.outboard;
      } catch (err) {
        if (err instanceof OutboardMismatch) throw new DownloadError(opts.rootHex, `opts.outboard: ${err.message}`, []);
        throw err;
      }
    }
    let knownRoot = false;
    if (!leaves && store) {
      const known = (await store.list()).find((d) => d.root === opts.rootHex && d.chunkGroupLog === opts.chunkGroupLog);
      if (known) {
        knownRoot = true;
        const opened = await store.open(opts.rootHex, known);
        const kept = await opened.readOutboard();
        try {
          if (kept) {
            leaves = LeafHashes.fromOutboard(kept, opts.root, opts.groupBytes);
            outboard = kept;
            stored = opened;
          }
        } catch (err) {
          if (!(err instanceof OutboardMismatch)) throw err;
        }
        if (!stored) await opened.close();
      }
    }
    if (!leaves) {
      const onClaimed = (size: number) => {
        if (ahead || knownRoot) return;
        ahead = new RangesAhead();
        const { groupBytes, concurrency: count, fetch, headers } = opts;
        ahead.ask(size, { groupBytes, perRange: opts.rangeSize / groupBytes, count, fetch, headers }, pool);
      };
      const ctx = { ...opts, signal, onClaimed };
      const urls: { url: string; source?: Source }[] =
        typeof opts.outboard === 'string'
          ? [{ url: opts.outboard }]
          : pool.sources.map((s) => ({ url: s.outboardUrl, source: s }));
      for (const { url, source } of urls) {
        try {
          ({ leaves, outboard } = await fetchOutboard(url, ctx));
          break;
        } catch (err) {
          if (err instanceof NotTheSource) throw err.error;
          if (!(err instanceof SourceFault)) throw err;
          // A bad outboard is a strike, not a drop: the source's content may still be right.
          if (source) pool.fault(source, new SourceFault(err.message, false));
          else extraFailures.push({ url, faults: [err.message], dropped: true });
        }
      }
      if (!leaves) throw fail('no outboard proves the root');
    }
    let tree: LeafHashes = leaves;
    let proven = false;
    const open = async (size: number): Promise<StoredContent> => {
      const s = await store!.open(opts.rootHex, { size, chunkGroupLog: opts.chunkGroupLog });
      // The outboard is kept with the size proven (or claimed until the final group proves it),
      // replacing one that is missing or damaged.
      const bytes = outboard!.slice();
      writeHeader(bytes, size);
      const kept = await s.readOutboard();
      if (!kept || kept.length !== bytes.length || kept.some((b, i) => b !== bytes[i])) await s.writeOutboard(bytes);
      return s;
    };
    stored ??= await open(tree.size);
    await kernel;
    const have = new Uint8Array(tree.groups);
    let verifiedBytes = 0;
    const event = opts.onGroups ?? (() => {});
    let lastProgress = 0;
    const progress = (final = false) => {
      if (!opts.onProgress) return;
      const now = Date.now();
      if (!final && now - lastProgress < PROGRESS_MS) return;
      lastProgress = now;
      const p: DownloadProgress = {
        verifiedBytes,
        totalBytes: tree.size,
        sources: pool.sources.map((s) => s.progress()),
      };
      opts.onProgress(p);
    };

    /** Groups verified by the request in flight, to be recorded when it ends. */
    const onVerified = (source: Source, pending: GroupRun[]) => async (first: number, bytes: Uint8Array) => {
      const count = Math.max(1, Math.ceil(bytes.length / tree.groupBytes));
      if (first + count === tree.groups && !proven) {
        proven = true;
        const size = first * tree.groupBytes + bytes.length;
        if (size !== tree.size) {
          // The header lied about the final group's length (the root fixes only the group
          // count): the store is reopened with the size the final group proved.
          extraFailures.push({
            url: 'outboard',
            faults: [`claimed ${tree.size} bytes; the final group proves ${size}`],
            dropped: false,
          });
          tree = tree.withSize(size);
          await stored!.close();
          stored = await open(size);
          // The store reopened empty: nothing counted before stands (the final group comes
          // before any stored group is counted, so this is only a guard).
          have.fill(0);
          verifiedBytes = 0;
          delivery?.opened?.({ runs: [], stored, leaves: tree, opts });
        }
      }
      await stored!.write(first * tree.groupBytes, bytes);
      pending.push({ first, count });
      for (let g = first; g < first + count; g++) have[g] = 1;
      verifiedBytes += bytes.length;
      source.verifiedBytes += bytes.length;
      delivery?.verified?.(first, bytes);
      event({ kind: 'verified', first, count, source: source.url });
      progress();
    };

    // One buffer per request in flight, kept from one range to the next.
    const buffers = new BatchBuffers(batchBytes(opts.groupBytes), opts.concurrency);
    const ctxFor = (source: Source, pending: GroupRun[], asked: AskedRange | undefined) => ({
      leaves: tree,
      buffers,
      fetch: opts.fetch,
      headers: opts.headers,
      stallTimeout: opts.stallTimeout,
      signal,
      verified: onVerified(source, pending),
      asked,
    });

    const runRanges = async (queue: Range[]): Promise<void> => {
      const running = new Set<Promise<void>>();
      let fatal: { error: unknown } | undefined;
      const runOne = async (range: Range, source: Source, asked: AskedRange | undefined): Promise<void> => {
        source.inflight++;
        const started = Date.now();
        const pending: GroupRun[] = [];
        try {
          // A range asked ahead was told when the size was proven.
          if (!asked) event({ kind: 'requested', first: range.first, count: range.count, source: source.url });
          await fetchRange(source, range, { ...ctxFor(source, pending, asked), leaves: tree });
          source.measured(range.count * tree.groupBytes, Date.now() - started);
          if (source.strikes > 0) source.strikes--;
        } catch (err) {
          if (err instanceof NotTheSource) throw err.error;
          if (!(err instanceof SourceFault)) throw err;
          pool.fault(source, err);
          const done = pending.reduce((n, r) => n + r.count, 0);
          const rest: Range = {
            first: range.first + done,
            count: range.count - done,
            failedOn: new Set([...range.failedOn, source]),
            attempts: range.attempts + 1,
          };
          // A fault after the range's last group verified (a body too long) leaves nothing to fetch.
          if (rest.count > 0) {
            event({ kind: 'refused', first: rest.first, count: rest.count, source: source.url, reason: err.reason });
            if (rest.attempts > MAX_STRIKES * pool.sources.length)
              throw fail(`no source could serve ${describeRange(tree, rest)}`);
            queue.unshift(rest);
          }
        } finally {
          source.inflight--;
          if (pending.length > 0) await stored!.commit(merge(pending));
        }
      };
      for (;;) {
        if (fatal) break;
        if (signal.aborted) {
          fatal = { error: signal.reason };
          break;
        }
        while (!fatal && running.size < opts.concurrency && queue.length > 0) {
          if (delivery?.mayStart && !delivery.mayStart(queue[0].first)) break;
          const asked = ahead?.take(queue[0]);
          const source = asked?.source ?? pool.pick(queue[0].failedOn);
          if (!source) break;
          const range = queue.shift()!;
          const task: Promise<void> = runOne(range, source, asked)
            .catch((error: unknown) => {
              fatal ??= { error };
              stop.abort(error);
            })
            .finally(() => running.delete(task));
          running.add(task);
        }
        if (running.size === 0) {
          if (fatal || queue.length === 0) break;
          if (pool.live.length === 0) {
            fatal = { error: fail(`every source was dropped; ${describeRange(tree, queue[0])} and more are missing`) };
            break;
          }
        }
        const waits: Promise<unknown>[] = [...running, stopped];
        if (delivery?.wake) waits.push(delivery.wake());
        await Promise.race(waits);
      }
      await Promise.allSettled([...running]);
      if (fatal) throw fatal.error;
    };

    const last = tree.groups - 1;
    const finalGroup = (): Range[] => [{ first: last, count: 1, failedOn: new Set(), attempts: 0 }];
    // The final group proves the size to the byte, so until the store holds it, it comes before
    // anything stored is counted: a header that lied about the size reopens the store with the
    // size proven, and nothing the old one held is counted as there.
    if (tree.size > 0 && !stored.recorded.some((r) => r.first <= last && last < r.first + r.count))
      await runRanges(finalGroup());
    // The groups stored before: checked again against the tree before anything counts on them.
    const rechecked = await recheck(stored!, tree, have);
    for (const run of rechecked)
      for (let g = run.first; g < run.first + run.count; g++) verifiedBytes += groupLen(tree, g);
    if (have[last]) proven = true;
    const good = proven ? merge([...rechecked, { first: last, count: 1 }]) : rechecked;
    const recorded = stored!.recorded;
    if (
      good.length !== recorded.length ||
      good.some((r, i) => r.first !== recorded[i].first || r.count !== recorded[i].count)
    )
      await stored!.rewriteRecord(good);
    delivery?.opened?.({ runs: rechecked, stored: stored!, leaves: tree, opts });
    for (const run of rechecked) event({ kind: 'stored', first: run.first, count: run.count });
    if (tree.size === 0) {
      if (!have[0]) {
        await stored!.commit([{ first: 0, count: 1 }]);
        delivery?.verified?.(0, new Uint8Array(0));
        // The root alone proves the empty content: no source is asked.
        event({ kind: 'verified', first: 0, count: 1 });
      }
      progress(true);
      return { leaves: tree, stored: stored!, opts };
    }
    if (!proven) await runRanges(finalGroup());
    progress(true);
    const ranges = plan(have, tree.groups - 1, opts.rangeSize / tree.groupBytes);
    // The ranges asked ahead went to their sources before the size was proven: those the plan
    // holds are told now, whether they are read or cancelled unread (their source dropped
    // meanwhile), so that what each source was asked adds up to the requests it was sent.
    ahead?.keepPlanned(ranges, (r) =>
      event({ kind: 'requested', first: r.first, count: r.count, source: r.source.url }),
    );
    await runRanges(ranges);
    ahead?.cancel();
    progress(true);
    if (have.some((b) => b === 0)) throw fail('groups are missing after every range ended');
    return { leaves: tree, stored, opts };
  } catch (err) {
    await stored?.close().catch(() => {});
    throw err;
  } finally {
    ahead?.cancel();
    outer?.removeEventListener('abort', onAbort);
    delivery?.signal?.removeEventListener('abort', onCancel);
  }
}

function describeRange(tree: LeafHashes, range: RangeRequest): string {
  const start = range.first * tree.groupBytes;
  const end = Math.min(tree.size, (range.first + range.count) * tree.groupBytes);
  return `bytes ${start}-${end - 1}`;
}
