/**
 * tus-js-client 4 (and @uppy/tus, which passes the options on): a `fileReader` that gives each
 * slice of the File to the request and to a hashing worker, which reads it (see
 * hashing-source.ts), and an
 * `onBeforeRequest` that sends the BLAKE3 root with the request that carries the last byte, in
 * the `Upload-Blake3` header. A header, not tus metadata: metadata is fixed when the upload is
 * created, before any byte is read, and the root is known only once the last slice is.
 *
 * The hash is always of the file itself, from its first byte. A checkpoint, saved under the
 * upload's URL at each slice (at a chunk boundary at or below the offset the server has
 * confirmed), records the state of the bytes this page sent there. When tus resumes an upload
 * (after a reload, found by a fingerprint of name, size, type and date that another file can
 * share), the worker hashes the file up to that checkpoint before the upload goes on: if the file
 * does not match it, the upload is another file's, and tus is told it is gone, so it starts a
 * fresh one (`onDiscard` says so). A resumed upload the server refuses (460) is retried once as a
 * fresh upload: the part the checkpoint did not cover may have come from another file.
 *
 * @example
 * ```ts
 * import { Upload } from 'tus-js-client';
 * import { blake3Tus } from '@blake3-web/upload';
 * const b3 = blake3Tus();
 * new Upload(file, { endpoint: '/files/', chunkSize: 8 * 1024 * 1024, ...b3.options }).start();
 * ```
 * @module
 */
import { bytesToHex, type Blake3Opts } from '@blake3-web/core';
import { Mode } from '@blake3-web/core/hazmat';
import { describe } from './_assert.js';
import { startHashWorker } from './_default-worker.js';
import { indexedDbCheckpointStore, type CheckpointStore } from './checkpoint-store.js';
import { HashingSource, type Blake3TusDiscard, type TusSlice } from './hashing-source.js';
import { WorkerHasher, type HasherEndpoint } from './worker-hasher.js';

export type { Blake3TusDiscard, TusSlice };

/** The request header that carries the root (64 lowercase hex digits) to the server. */
export const ROOT_HEADER = 'Upload-Blake3';

/** The status of an upload the server refused (tus's checksum mismatch status, as verifyBlake3 answers). */
const REFUSED_STATUS = 460;
/** What tus is told of an upload it must not resume: its HEAD is answered as this (Gone). */
const GONE_STATUS = 410;

/** The parts of tus-js-client's request and response objects the adapter uses. */
export interface TusRequest {
  getMethod(): string;
  getURL(): string;
  getHeader(name: string): string | undefined;
  setHeader(name: string, value: string): void;
}
export interface TusResponse {
  getStatus(): number;
  getHeader(name: string): string | undefined;
}
export interface TusFileSource {
  size: number;
  slice(start: number, end: number): Promise<TusSlice>;
  close(): void;
}

export type Blake3TusOpts = Omit<Blake3Opts, 'dkLen'> & {
  /** Starts the hashing worker (default: the package's hash-worker as a module worker). */
  createWorker?: () => HasherEndpoint;
  /**
   * The worker reads each slice of the File itself and tus sends the File's own slice, so the
   * page never holds the bytes (default where XMLHttpRequest sends tus's requests: browsers).
   * Off, the adapter reads each slice once and hands the bytes to the request and the worker:
   * for request stacks that need bytes (tus-js-client's Node stack) or a worker that cannot be
   * sent a Blob (a file-backed Blob in Node).
   */
  readInWorker?: boolean;
  /**
   * Where checkpoints are kept, under each upload's URL (default: IndexedDB where there is one);
   * null keeps none, and a resumed upload is then checked by the server alone.
   */
  checkpoints?: CheckpointStore | null;
  /**
   * Called when saved state is discarded: a checkpoint refused, an upload resumed that holds
   * another file's bytes, an upload the server refused (see Blake3TusDiscard). `fresh` says a
   * fresh upload takes the upload's place.
   */
  onDiscard?: (event: Blake3TusDiscard) => void;
  /**
   * tus-js-client's option of that name, asked after the adapter's own rule (a resumed upload the
   * server refused is retried once, as a fresh upload). Default: tus-js-client 4's rule. Give it
   * here, not beside the adapter's options, which it would replace.
   */
  onShouldRetry?: (err: Error, retryAttempt: number, options: unknown, tusDefault?: unknown) => boolean;
  /** Called before each request, after the adapter's own work (tus-js-client's option of that name). */
  onBeforeRequest?: (req: TusRequest) => void | Promise<void>;
  /** Called after each response, after the adapter's own work. */
  onAfterResponse?: (req: TusRequest, res: TusResponse) => void | Promise<void>;
};

export type Blake3Tus = {
  /** Spread into tus-js-client's options. */
  readonly options: {
    fileReader: { openFile(input: unknown, chunkSize: number): Promise<TusFileSource> };
    onBeforeRequest(req: TusRequest): Promise<void>;
    onAfterResponse(req: TusRequest, res: TusResponse): Promise<void>;
    onShouldRetry(err: Error, retryAttempt: number, options: unknown, tusDefault?: unknown): boolean;
  };
  /** Bytes read from the File so far: each byte once, plus the part the server holds, read again after a resume. */
  readonly bytesRead: number;
  /** The root, once the last slice has been hashed. */
  readonly root: Promise<Uint8Array>;
};

/**
 * tus-js-client 4's own retry rule (not exported by it): retry unless the server answered a 4xx
 * other than 409 and 423, and not while the browser says it is offline.
 */
function tusShouldRetry(err: Error): boolean {
  const res = (err as { originalResponse?: TusResponse | null }).originalResponse;
  const status = res ? res.getStatus() : 0;
  const online = typeof navigator === 'undefined' || navigator.onLine !== false;
  return (status < 400 || status >= 500 || status === 409 || status === 423) && online;
}

/** Makes tus read the response as 410 Gone: for a HEAD, it then forgets the upload and creates a new one. */
function answerGone(res: TusResponse): void {
  Object.defineProperty(res, 'getStatus', { value: () => GONE_STATUS, configurable: true });
}

const isOk = (status: number) => status >= 200 && status < 300;

function isPowerOfTwo(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 1024 && (n & (n - 1)) === 0;
}

/** One adapter per upload: create a new one for each tus Upload. */
export function blake3Tus(opts: Blake3TusOpts = {}): Blake3Tus {
  if (typeof opts !== 'object' || opts === null) throw new TypeError(`opts must be an object, got ${describe(opts)}`);
  // Checked now (a key and a context together are refused), before any upload starts.
  const { dkLen: _, ...mode } = new Mode({ key: opts.key, context: opts.context }).options;
  const store =
    opts.checkpoints !== undefined
      ? opts.checkpoints
      : typeof indexedDB === 'undefined'
        ? null
        : indexedDbCheckpointStore();
  const createWorker = opts.createWorker ?? startHashWorker;
  const readInWorker = opts.readInWorker ?? typeof XMLHttpRequest === 'function';
  if (typeof readInWorker !== 'boolean')
    throw new TypeError(`opts.readInWorker must be a boolean, got ${describe(readInWorker)}`);
  for (const hook of ['onDiscard', 'onShouldRetry', 'onBeforeRequest', 'onAfterResponse'] as const)
    if (opts[hook] !== undefined && typeof opts[hook] !== 'function')
      throw new TypeError(`opts.${hook} must be a function, got ${describe(opts[hook])}`);
  const onDiscard = (event: Blake3TusDiscard) => opts.onDiscard?.(event);
  let source: HashingSource | undefined;
  let resolveRoot!: (root: Uint8Array) => void;
  let rejectRoot!: (e: unknown) => void;
  const root = new Promise<Uint8Array>((resolve, reject) => {
    resolveRoot = resolve;
    rejectRoot = reject;
  });
  root.catch(() => undefined); // unread when the upload stops before its last slice

  async function openFile(input: unknown, chunkSize: number): Promise<TusFileSource> {
    if (!(input instanceof Blob))
      throw new TypeError(`the upload's input must be a Blob or File, got ${describe(input)}`);
    if (!isPowerOfTwo(chunkSize))
      throw new RangeError(`chunkSize must be a power of two of at least 1024 bytes, got ${chunkSize}`);
    if (source !== undefined) throw new TypeError('this adapter serves one upload: create one per tus Upload');
    const hasher = await WorkerHasher.open(createWorker(), mode);
    source = new HashingSource(input, hasher, chunkSize, store, readInWorker, onDiscard);
    source.root.then(resolveRoot, rejectRoot);
    return source;
  }

  const carriesData = (req: TusRequest) => req.getMethod() === 'PATCH' || (req.getMethod() === 'POST' && !!source);

  return {
    options: {
      fileReader: { openFile },
      async onBeforeRequest(req) {
        if (source?.final && carriesData(req)) req.setHeader(ROOT_HEADER, bytesToHex(await source.root));
        await opts.onBeforeRequest?.(req);
      },
      async onAfterResponse(req, res) {
        const method = req.getMethod();
        const status = res.getStatus();
        if (source !== undefined && method === 'HEAD' && isOk(status)) {
          // tus resumes this upload: it goes on only if it is this file's.
          const length = res.getHeader('Upload-Length');
          if (!(await source.resume(req.getURL(), length ? Number(length) : undefined))) answerGone(res);
        } else if (source !== undefined && method === 'POST' && isOk(status)) {
          const location = res.getHeader('Location');
          if (location) source.created(new URL(location, req.getURL()).href);
        }
        if (source !== undefined && carriesData(req) && status === REFUSED_STATUS) await source.refused();
        const done =
          source?.final && carriesData(req) && isOk(status) && res.getHeader('Upload-Offset') === String(source.size);
        if (done) await source?.forget();
        await opts.onAfterResponse?.(req, res);
      },
      onShouldRetry(err, retryAttempt, options, tusDefault) {
        if (source?.takeFreshRetry()) return true;
        if (opts.onShouldRetry) return opts.onShouldRetry(err, retryAttempt, options, tusDefault);
        // @uppy/tus passes its own default rule as a fourth argument.
        return typeof tusDefault === 'function' ? Boolean(tusDefault(err)) : tusShouldRetry(err);
      },
    },
    get bytesRead() {
      return source?.bytesRead ?? 0;
    },
    root,
  };
}
