/**
 * The options of `download()` and `downloadStream()`, and their checks: every bad argument is a
 * `TypeError` (wrong type) or a `RangeError` (bad value) naming the argument and what arrived.
 * @module
 */
import { anInteger, describe } from '@blake3-web/core/_assert';
import { bytesToHex, hexToBytes } from '@blake3-web/core';
import type { DownloadStore } from './store.js';

/** A mirror of the content: its URL, and where its outboard is (default: the URL + `.obao`). */
export type SourceInput = string | URL | { readonly url: string | URL; readonly outboard?: string | URL };

/** How ranges are given to sources. */
export type Strategy =
  /** The source with the best measured throughput per range in flight; new sources are tried first. */
  | 'fastest'
  /** Each source in turn. */
  | 'round-robin'
  /** The first source that is not demoted or dropped; the others are fallbacks. */
  | 'in-order';

/** What a source has done so far. */
export type SourceProgress = {
  readonly url: string;
  /** Content bytes it served that verified. */
  readonly verifiedBytes: number;
  /** Faults it made (see `DownloadError.failures` for what they were). */
  readonly faults: number;
  readonly state: 'active' | 'demoted' | 'dropped';
};

export type DownloadProgress = {
  /** Content bytes verified, including those a resumed download found stored. */
  readonly verifiedBytes: number;
  /** The content's size, from its verified outboard. */
  readonly totalBytes: number;
  readonly sources: readonly SourceProgress[];
};

/**
 * What happened to groups `first` .. `first + count - 1` (group indices, each group one leaf of
 * `2^chunkGroupLog` KiB): enough to draw a live map of the content.
 */
export type GroupEvent = {
  /**
   * `'stored'`: found in the store when the download opened, and verified again;
   * `'requested'`: asked of `source` (the ranges asked ahead while the outboard arrived that the
   *   plan holds: once the final group has proven the size, whether the download reads them or
   *   cancels them unread);
   * `'verified'`: arrived from `source`, verified against the root, and written to the store;
   * `'refused'`: the rest of a range `source` failed (`reason` says how), to be asked of another.
   */
  readonly kind: 'stored' | 'requested' | 'verified' | 'refused';
  readonly first: number;
  readonly count: number;
  /** The source's URL (absent for `'stored'`, and for the one group of empty content, which the root proves). */
  readonly source?: string;
  /** Why the source failed (`'refused'` only), e.g. `'group 12 does not match the root'`. */
  readonly reason?: string;
};

export type DownloadOpts = {
  /** The content's BLAKE3 hash: 32 bytes, or 64 hex digits. */
  root: string | Uint8Array;
  /** Leaves (groups) of 2^chunkGroupLog KiB, verified one by one (default 4: 16 KiB, the outboard's). */
  chunkGroupLog?: number;
  /**
   * The outboard for every source, as bytes or a URL (default: each source's own, its URL with
   * `.obao` appended, tried in turn until one proves the root).
   */
  outboard?: Uint8Array | string | URL;
  /** Range requests in flight at once (default 4). */
  concurrency?: number;
  /** Bytes per range request, a multiple of the group size (default 2 MiB). */
  rangeSize?: number;
  /** How ranges go to sources (default `'fastest'`). */
  strategy?: Strategy;
  /** Milliseconds without a byte before a request counts as stalled (default 20000). */
  stallTimeout?: number;
  /** The largest outboard accepted (default 64 MiB: 16 GiB of content in 16 KiB groups). */
  maxOutboardBytes?: number;
  /**
   * Where verified groups go (default: in a browser `browserStore()`, the Origin Private File
   * System or else IndexedDB, so a download resumes after a reload; elsewhere memory).
   */
  store?: DownloadStore;
  /** Headers sent with every request (authorization, say); `Range` is the download's own. */
  headers?: HeadersInit;
  /** The `fetch` to use (default: the global one). */
  fetch?: typeof fetch;
  signal?: AbortSignal;
  /** Called as bytes verify (at most every few milliseconds, and once at the end). */
  onProgress?: (progress: DownloadProgress) => void;
  /**
   * Called for every change of state of groups, as it happens: the groups a resumed download
   * found stored, then each range asked of a source, the groups that verified, and the groups a
   * source failed. Every group ends `'stored'` or `'verified'` exactly once.
   */
  onGroups?: (event: GroupEvent) => void;
};

export type ResolvedSource = { url: string; outboard: string | undefined };

export type ResolvedOpts = {
  root: Uint8Array;
  rootHex: string;
  chunkGroupLog: number;
  groupBytes: number;
  outboard: Uint8Array | string | undefined;
  concurrency: number;
  rangeSize: number;
  strategy: Strategy;
  stallTimeout: number;
  maxOutboardBytes: number;
  store: DownloadStore | undefined;
  headers: Headers;
  fetch: typeof fetch;
  signal: AbortSignal | undefined;
  onProgress: ((progress: DownloadProgress) => void) | undefined;
  onGroups: ((event: GroupEvent) => void) | undefined;
};

export const DEFAULT_CHUNK_GROUP_LOG = 4;
const MAX_CHUNK_GROUP_LOG = 16;
export const DEFAULT_CONCURRENCY = 4;
export const DEFAULT_RANGE_SIZE: number = 2 << 20;
const DEFAULT_STALL_TIMEOUT = 20_000;
const DEFAULT_MAX_OUTBOARD = 64 << 20;
const STRATEGIES: readonly Strategy[] = ['fastest', 'round-robin', 'in-order'];

/** The sources as absolute http(s) URLs with their outboards' URLs. */
export function resolveSources(sources: unknown): ResolvedSource[] {
  const list = Array.isArray(sources) ? (sources as unknown[]) : [sources];
  if (list.length === 0) throw new RangeError('sources must name at least one URL, got an empty Array');
  return list.map((s, i) => {
    const name = Array.isArray(sources) ? `sources[${i}]` : 'sources';
    if (typeof s === 'object' && s !== null && !(s instanceof URL)) {
      const { url, outboard } = s as { url?: unknown; outboard?: unknown };
      return {
        url: aUrl(url, `${name}.url`),
        outboard: outboard === undefined ? undefined : aUrl(outboard, `${name}.outboard`),
      };
    }
    return { url: aUrl(s, name), outboard: undefined };
  });
}

function aUrl(value: unknown, name: string): string {
  if (typeof value !== 'string' && !(value instanceof URL))
    throw new TypeError(`${name} must be a URL or a string, got ${describe(value)}`);
  let url: URL;
  try {
    url = new URL(String(value), (globalThis as { location?: { href: string } }).location?.href);
  } catch {
    throw new TypeError(`${name} must be a URL, got ${JSON.stringify(String(value))}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TypeError(`${name} must be an http: or https: URL, got ${JSON.stringify(url.href)}`);
  return url.href;
}

/** The root: 32 bytes or 64 hex digits. */
export function aRoot(value: unknown): Uint8Array {
  if (typeof value === 'string') {
    if (!/^[0-9a-fA-F]*$/.test(value) || value.length % 2 !== 0)
      throw new TypeError(`opts.root must be 64 hex digits, got ${JSON.stringify(value.slice(0, 80))}`);
    if (value.length !== 64) throw new RangeError(`opts.root must be 64 hex digits, got ${value.length}`);
    return hexToBytes(value);
  }
  if (!(value instanceof Uint8Array))
    throw new TypeError(`opts.root must be a Uint8Array of 32 bytes or 64 hex digits, got ${describe(value)}`);
  if (value.length !== 32) throw new RangeError(`opts.root must be 32 bytes, got ${value.length}`);
  return value.slice();
}

export function resolveOpts(opts: unknown): ResolvedOpts {
  if (typeof opts !== 'object' || opts === null)
    throw new TypeError(`opts must be an object with a root, got ${describe(opts)}`);
  const o = opts as DownloadOpts;
  const root = aRoot(o.root);
  const chunkGroupLog =
    o.chunkGroupLog === undefined
      ? DEFAULT_CHUNK_GROUP_LOG
      : anInteger(o.chunkGroupLog, 'opts.chunkGroupLog', 0, MAX_CHUNK_GROUP_LOG);
  const groupBytes = 1024 * 2 ** chunkGroupLog;
  const concurrency =
    o.concurrency === undefined ? DEFAULT_CONCURRENCY : anInteger(o.concurrency, 'opts.concurrency', 1, 64);
  const rangeSize = o.rangeSize === undefined ? Math.max(DEFAULT_RANGE_SIZE, groupBytes) : o.rangeSize;
  anInteger(rangeSize, 'opts.rangeSize', groupBytes, 2 ** 31);
  if (rangeSize % groupBytes !== 0)
    throw new RangeError(`opts.rangeSize must be a multiple of the group size (${groupBytes} bytes), got ${rangeSize}`);
  const strategy = o.strategy ?? 'fastest';
  if (!STRATEGIES.includes(strategy))
    throw new RangeError(`opts.strategy must be one of ${STRATEGIES.join(', ')}, got ${describe(strategy)}`);
  const stallTimeout =
    o.stallTimeout === undefined
      ? DEFAULT_STALL_TIMEOUT
      : anInteger(o.stallTimeout, 'opts.stallTimeout', 1, 2 ** 31 - 1);
  const maxOutboardBytes =
    o.maxOutboardBytes === undefined
      ? DEFAULT_MAX_OUTBOARD
      : anInteger(o.maxOutboardBytes, 'opts.maxOutboardBytes', 8, Number.MAX_SAFE_INTEGER);
  let outboard: Uint8Array | string | undefined;
  if (o.outboard instanceof Uint8Array) outboard = o.outboard.slice();
  else if (o.outboard !== undefined) outboard = aUrl(o.outboard, 'opts.outboard');
  const store = o.store;
  if (store !== undefined && (typeof store !== 'object' || store === null || typeof store.open !== 'function'))
    throw new TypeError(
      `opts.store must be a DownloadStore (an object with open, list and remove), got ${describe(store)}`,
    );
  const doFetch = o.fetch ?? globalThis.fetch;
  if (typeof doFetch !== 'function') throw new TypeError(`opts.fetch must be a function, got ${describe(o.fetch)}`);
  if (o.signal !== undefined && !(o.signal instanceof AbortSignal))
    throw new TypeError(`opts.signal must be an AbortSignal, got ${describe(o.signal)}`);
  if (o.onProgress !== undefined && typeof o.onProgress !== 'function')
    throw new TypeError(`opts.onProgress must be a function, got ${describe(o.onProgress)}`);
  if (o.onGroups !== undefined && typeof o.onGroups !== 'function')
    throw new TypeError(`opts.onGroups must be a function, got ${describe(o.onGroups)}`);
  let headers: Headers;
  try {
    headers = new Headers(o.headers);
  } catch (err) {
    throw new TypeError(`opts.headers must be headers, got ${describe(o.headers)}`, { cause: err });
  }
  headers.delete('range');
  return {
    root,
    rootHex: bytesToHex(root),
    chunkGroupLog,
    groupBytes,
    outboard,
    concurrency,
    rangeSize,
    strategy,
    stallTimeout,
    maxOutboardBytes,
    store,
    headers,
    // Called as a method of the resolved options below: browsers refuse a fetch whose `this` is
    // not the global (Window.fetch, WorkerGlobalScope.fetch), so it is called unbound.
    fetch: (input, init) => doFetch(input, init),
    signal: o.signal,
    onProgress: o.onProgress,
    onGroups: o.onGroups,
  };
}
