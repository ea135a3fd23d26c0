/**
 * A `DownloadStore` in the Origin Private File System, for browsers: the default there where the
 * engine has OPFS (Chromium, Firefox; WebKit from Safari 15.2). Its files are written by a
 * dedicated worker through synchronous access handles (`opfs-worker.ts`), which write in place and
 * flush on demand; the page only posts verified bytes to it. Engines without OPFS (WebKitGTK)
 * get `idbStore()` from `browserStore()`.
 * @module
 */
import { StartingWorker, WorkerStartup } from '@blake3-web/worker/_internal';
import { DownloadQuotaError } from './errors.js';
import { OPFS_READY, type OpfsCall, type OpfsCalls, type OpfsResponse } from './_opfs-protocol.js';
import type { ContentShape, DownloadStore, GroupRun, StoredContent, StoredDownloadInfo } from './store.js';

export type OpfsStoreOpts = {
  /** The directory in the origin's private file system, `/`-separated (default `blake3-web-download`). */
  directory?: string;
  /** Starts the store's worker (default: the package's `opfs-worker.bundle.js`, else a blob: URL of it). */
  createWorker?: () => Worker;
};

const opfsWorker = /* @__PURE__ */ new WorkerStartup({
  name: "the download store's OPFS worker",
  pkg: '@blake3-web/download',
  file: './opfs-worker.bundle.js',
  base: import.meta.url,
  fromFile: () => new Worker(new URL('./opfs-worker.bundle.js', import.meta.url), { type: 'module' }),
  source: () => import('./opfs-worker-source.js').then((m) => m.default),
  ready: OPFS_READY,
});

/** Whether this realm has the Origin Private File System. */
export const hasOpfs = (): boolean =>
  typeof navigator !== 'undefined' && typeof navigator.storage?.getDirectory === 'function';

/** One worker and its pending calls; a worker that dies fails them all, and the next call starts another. */
class OpfsClient {
  readonly #create: () => Worker | StartingWorker;
  #worker: Worker | StartingWorker | undefined;
  #pending = new Map<number, { resolve(v: unknown): void; reject(e: unknown): void }>();
  #seq = 0;

  constructor(create: () => Worker | StartingWorker) {
    this.#create = create;
  }

  call<K extends OpfsCall>(call: K, ...args: OpfsCalls[K][0]): Promise<OpfsCalls[K][1]> {
    const worker = (this.#worker ??= this.#start());
    const seq = this.#seq++;
    return new Promise((resolve, reject) => {
      this.#pending.set(seq, { resolve: resolve as (v: unknown) => void, reject });
      const transfer = args.filter((a): a is Uint8Array => a instanceof Uint8Array).map((a) => a.buffer);
      worker.postMessage({ seq, call, args }, transfer as Transferable[]);
    });
  }

  #start(): Worker | StartingWorker {
    const worker = this.#create();
    worker.addEventListener('message', (e) => {
      const r = (e as MessageEvent<OpfsResponse>).data;
      if (r === (OPFS_READY as unknown)) return;
      const p = this.#pending.get(r.seq);
      if (!p) return;
      this.#pending.delete(r.seq);
      if (r.ok) p.resolve(r.value);
      else p.reject(revive(r.error));
    });
    worker.addEventListener('error', (e) => {
      const event = e as ErrorEvent;
      event.preventDefault?.();
      const error =
        event.error instanceof Error
          ? event.error
          : new Error(`the OPFS worker failed: ${event.message || 'an error event'}`);
      this.#fail(error);
    });
    return worker;
  }

  #fail(error: Error): void {
    this.#worker?.terminate();
    this.#worker = undefined;
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of pending) p.reject(error);
  }
}

/** An error from the worker as the class it was: a full origin quota is the package's quota error. */
function revive(e: { name: string; message: string; stack?: string }): Error {
  if (e.name === 'QuotaExceededError')
    return new DownloadQuotaError(`the origin's storage quota is exhausted: ${e.message}`, {
      cause: new DOMException(e.message, e.name),
    });
  const Ctor = e.name === 'TypeError' ? TypeError : e.name === 'RangeError' ? RangeError : Error;
  const err = new Ctor(e.message);
  if (Ctor === Error && e.name !== 'Error') err.name = e.name;
  if (e.stack) err.stack = e.stack;
  return err;
}

/** Bytes the page hands to the worker are transferred: a copy, so the caller's stay usable. */
const own = (bytes: Uint8Array): Uint8Array => bytes.slice();

/** Buffers kept to carry writes, at most (a few per request in flight). */
const SPARE_BUFFERS = 8;

/**
 * The buffers that carry verified bytes to the worker, which sends each back with its answer to
 * carry a later write: a fresh copy per write is garbage that Firefox frees late, and 2 GiB
 * written that way grew its tab process by well over a hundred MiB.
 */
class WriteBuffers {
  readonly #spare: ArrayBuffer[] = [];

  /** A copy of `bytes` in a buffer of its own (a spare one where one is large enough), to transfer. */
  carry(bytes: Uint8Array): Uint8Array {
    const i = this.#spare.findIndex((b) => b.byteLength >= bytes.length);
    const buffer = i < 0 ? new ArrayBuffer(bytes.length) : this.#spare.splice(i, 1)[0]!;
    const view = new Uint8Array(buffer, 0, bytes.length);
    view.set(bytes);
    return view;
  }

  /** A buffer back from the worker, free again. */
  back(bytes: Uint8Array): void {
    if (this.#spare.length < SPARE_BUFFERS) this.#spare.push(bytes.buffer as ArrayBuffer);
  }
}

/**
 * A store in the Origin Private File System (see the module's comment). Each store has one worker,
 * started on first use; a root open in one store (or tab) cannot be opened by another at the same
 * time, since sync access handles lock their files.
 */
export function opfsStore(opts: OpfsStoreOpts = {}): DownloadStore & { probe(): Promise<void> } {
  if (typeof opts !== 'object' || opts === null) throw new TypeError(`opts must be an object, got ${String(opts)}`);
  const directory = opts.directory ?? 'blake3-web-download';
  if (typeof directory !== 'string' || directory.split('/').some((p) => p === '.' || p === '..'))
    throw new TypeError(`opts.directory must be a /-separated path without . or .., got ${String(directory)}`);
  if (opts.createWorker !== undefined && typeof opts.createWorker !== 'function')
    throw new TypeError(`opts.createWorker must be a function, got ${typeof opts.createWorker}`);
  const writeBuffers = new WriteBuffers();
  const client = new OpfsClient(() => {
    if (opts.createWorker) return opts.createWorker();
    if (!hasOpfs())
      throw new TypeError('this engine has no Origin Private File System: use idbStore() or browserStore()');
    return new StartingWorker(opfsWorker);
  });
  return {
    async open(root: string, shape: ContentShape): Promise<StoredContent> {
      const { id, recorded } = await client.call('open', directory, root, {
        size: shape.size,
        chunkGroupLog: shape.chunkGroupLog,
      });
      return {
        recorded,
        readOutboard: () => client.call('readOutboard', id),
        writeOutboard: (outboard) => client.call('writeOutboard', id, own(outboard)),
        write: async (offset, bytes) =>
          writeBuffers.back(await client.call('write', id, offset, writeBuffers.carry(bytes))),
        commit: (runs: readonly GroupRun[]) =>
          client.call(
            'commit',
            id,
            runs.map((r) => ({ first: r.first, count: r.count })),
          ),
        rewriteRecord: (runs: readonly GroupRun[]) =>
          client.call(
            'rewriteRecord',
            id,
            runs.map((r) => ({ first: r.first, count: r.count })),
          ),
        read: (offset, length) => client.call('read', id, offset, length),
        blob: () => client.call('blob', id),
        close: () => client.call('close', id),
      };
    },
    list: (): Promise<StoredDownloadInfo[]> => client.call('list', directory),
    /** Rejects if this engine cannot keep files here (what `browserStore()` asks first). */
    probe: (): Promise<void> => client.call('probe', directory),
    remove: (root: string): Promise<boolean> => client.call('remove', directory, root),
  };
}
