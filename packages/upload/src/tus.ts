/**
 * tus-js-client 4 (and @uppy/tus, which passes the options on): a `fileReader` that gives each
 * slice of the File to the request and to a hashing worker, which reads it (see
 * hashing-source.ts), and an
 * `onBeforeRequest` that sends the BLAKE3 root with the request that carries the last byte, in
 * the `Upload-Blake3` header. A header, not tus metadata: metadata is fixed when the upload is
 * created, before any byte is read, and the root is known only once the last slice is.
 *
 * The hash state is checkpointed at each slice, at a chunk boundary at or below the offset the
 * server has confirmed; after a reload the upload resumes from that checkpoint and reads again
 * only the bytes between it and the server's offset.
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
import { bytesToHex } from '@blake3-web/core';
import { aString, describe } from './_assert.js';
import { startHashWorker } from './_default-worker.js';
import type { HashMode } from './_subtrees.js';
import { modeName, readCheckpoint } from './checkpoint.js';
import { indexedDbCheckpointStore, type CheckpointStore } from './checkpoint-store.js';
import { HashingSource, type TusSlice } from './hashing-source.js';
import { WorkerHasher, type HasherEndpoint } from './worker-hasher.js';

export type { TusSlice };

/** The request header that carries the root (64 lowercase hex digits) to the server. */
export const ROOT_HEADER = 'Upload-Blake3';

/** The parts of tus-js-client's request and response objects the adapter uses. */
export interface TusRequest {
  getMethod(): string;
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

export type Blake3TusOpts = HashMode & {
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
  /** Where checkpoints are kept (default: IndexedDB where there is one); null keeps none. */
  checkpoints?: CheckpointStore | null;
  /** The identity checkpoints are kept under (default: the File's name, size, type and lastModified). */
  uploadId?: (file: Blob) => string;
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
  };
  /** Bytes read from the File so far: each byte once, plus the gap re-read after a resume. */
  readonly bytesRead: number;
  /** The root, once the last slice has been hashed. */
  readonly root: Promise<Uint8Array>;
};

function defaultUploadId(file: Blob): string {
  const f = file as Partial<File>;
  return JSON.stringify(['blake3-web/upload', f.name ?? '', file.size, file.type, f.lastModified ?? 0]);
}

function isPowerOfTwo(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 1024 && (n & (n - 1)) === 0;
}

/** One adapter per upload: create a new one for each tus Upload. */
export function blake3Tus(opts: Blake3TusOpts = {}): Blake3Tus {
  if (typeof opts !== 'object' || opts === null) throw new TypeError(`opts must be an object, got ${describe(opts)}`);
  const mode: HashMode = {};
  if (opts.key !== undefined) mode.key = opts.key;
  if (opts.context !== undefined) mode.context = opts.context;
  const name = modeName(mode); // validates key and context
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
    const id = aString(opts.uploadId ? opts.uploadId(input) : defaultUploadId(input), 'the upload id');
    const saved = store ? await store.get(id) : undefined;
    // Checked here first, so that a refused state is a CheckpointError on this side.
    const checkpoint = saved === undefined ? undefined : (readCheckpoint(saved, id, name), saved as never);
    const hasher = await WorkerHasher.open(createWorker(), { ...mode, upload: id, checkpoint });
    source = new HashingSource(input, id, hasher, chunkSize, store, readInWorker);
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
        const done =
          source?.final &&
          carriesData(req) &&
          res.getStatus() >= 200 &&
          res.getStatus() < 300 &&
          res.getHeader('Upload-Offset') === String(source.size);
        if (done) await source?.forget();
        await opts.onAfterResponse?.(req, res);
      },
    },
    get bytesRead() {
      return source?.bytesRead ?? 0;
    },
    root,
  };
}
