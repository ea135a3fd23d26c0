import { aRoot, type DownloadOpts, type GroupEvent, type SourceInput } from './download-options.js';
import { describe } from '@blake3-web/core/_assert';
import { bytesToHex } from '@blake3-web/core';
import { download } from './download.js';

/** What a URL is: its root, and optionally its mirrors (default: the URL itself) and type. */
export type VerifiedEntry =
  | string
  | Uint8Array
  | {
      readonly root: string | Uint8Array;
      readonly sources?: SourceInput | readonly SourceInput[];
      /** The response's Content-Type. */
      readonly type?: string;
    };

export type VerifiedFetchOpts = Omit<DownloadOpts, 'root' | 'signal' | 'onProgress' | 'onGroups'> & {
  /** `download()`'s `onGroups` for every download, with the root (lowercase hex) it concerns. */
  onGroups?: (event: GroupEvent, root: string) => void;
  /** The verified URLs: a map from URL to root (or entry), or a function that answers for a URL. */
  files: Readonly<Record<string, VerifiedEntry>> | ((url: string) => VerifiedEntry | undefined);
  /**
   * Answers the requests for other URLs (default: none; such a request rejects with a
   * TypeError, so nothing unverified passes by accident).
   */
  fallback?: typeof fetch;
};

/**
 * A `fetch` for libraries that take one: a GET or HEAD of a URL in `files` answers with the
 * verified content (downloaded once per root with `download()` and the options given, from the
 * store if it is there), a `Range: bytes=...` header with a 206 of that part; any other request
 * goes to `fallback`. A download that fails rejects the fetch with its error.
 *
 * @example
 * ```ts
 * const verifiedFetch = createVerifiedFetch({ files: { 'https://cdn.example/model.onnx': root }, store });
 * const session = await loadModel('https://cdn.example/model.onnx', { fetch: verifiedFetch });
 * ```
 */
export function createVerifiedFetch(opts: VerifiedFetchOpts): typeof fetch {
  if (typeof opts !== 'object' || opts === null) throw new TypeError(`opts must be an object, got ${describe(opts)}`);
  const { files, fallback, onGroups, ...downloadOpts } = opts;
  if (typeof files !== 'function' && (typeof files !== 'object' || files === null))
    throw new TypeError(`opts.files must be an object or a function, got ${describe(files)}`);
  if (fallback !== undefined && typeof fallback !== 'function')
    throw new TypeError(`opts.fallback must be a function, got ${describe(fallback)}`);
  if (onGroups !== undefined && typeof onGroups !== 'function')
    throw new TypeError(`opts.onGroups must be a function, got ${describe(onGroups)}`);
  const lookup = (url: string): VerifiedEntry | undefined =>
    typeof files === 'function'
      ? files(url)
      : Object.prototype.hasOwnProperty.call(files, url)
        ? files[url]
        : undefined;
  /** One download per root, shared by every request for it; a failed one is tried again next time. */
  const downloads = new Map<string, Promise<Blob>>();
  const verifiedFetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const entry = lookup(request.url);
    if (entry === undefined || (request.method !== 'GET' && request.method !== 'HEAD')) {
      if (fallback) return fallback(input, init);
      throw new TypeError(`${request.method} ${request.url} is not a verified download (not in opts.files)`);
    }
    const target = typeof entry === 'object' && !(entry instanceof Uint8Array) ? entry : { root: entry };
    const root = aRoot(target.root);
    const key = bytesToHex(root);
    let pending = downloads.get(key);
    if (!pending) {
      pending = download(target.sources ?? request.url, {
        ...downloadOpts,
        root,
        onGroups: onGroups && ((event) => onGroups(event, key)),
      });
      downloads.set(key, pending);
      pending.catch(() => downloads.delete(key));
    }
    const blob = await abortable(pending, request.signal);
    const type = target.type ?? 'application/octet-stream';
    const range = parseRange(request.headers.get('range'), blob.size);
    const head = request.method === 'HEAD';
    if (range === undefined) {
      return new Response(head ? null : blob, {
        status: 200,
        headers: { 'content-type': type, 'content-length': String(blob.size), 'accept-ranges': 'bytes' },
      });
    }
    if (range === 'unsatisfiable')
      return new Response(null, { status: 416, headers: { 'content-range': `bytes */${blob.size}` } });
    const part = blob.slice(range.start, range.end + 1);
    return new Response(head ? null : part, {
      status: 206,
      headers: {
        'content-type': type,
        'content-length': String(part.size),
        'content-range': `bytes ${range.start}-${range.end}/${blob.size}`,
        'accept-ranges': 'bytes',
      },
    });
  };
  return verifiedFetch as typeof fetch;
}

/** `promise`, or the signal's reason once it aborts (the shared download goes on). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * A single `bytes=` range of content of `size` bytes: undefined without one (or with a form not
 * served, such as several ranges: the whole content answers, as RFC 9110 allows), or
 * 'unsatisfiable' (a 416).
 */
export function parseRange(
  header: string | null,
  size: number,
): { start: number; end: number } | 'unsatisfiable' | undefined {
  if (header === null) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || (m[2] !== '' && Number(m[2]) < start)) return 'unsatisfiable';
  return { start, end };
}
