/**
 * The worker pool: cuts an input into power-of-two subtrees (plan-subtrees.ts), hashes them in
 * workers, a bounded number at a time, and merges their chaining values in order on this thread
 * (merge-chaining-values.ts).
 *
 * @example
 * ```ts
 * import { createPool } from '@blake3-web/worker';
 * const pool = createPool();
 * const hash = await pool.hashBlob(file, { onProgress: (done, total) => bar.update(done / total) });
 * pool.terminate();
 * ```
 * @module
 */
import { blake3, type Blake3Opts } from '@blake3-web/core';
import type { SubtreeOpts } from '@blake3-web/core/hazmat';
import { aFunction, anInteger, describe, isBlob } from './_assert.js';
import type { Platform } from './_platform.js';
import { hashRange, readBlobRange } from './_hash-range.js';
import { WorkerDiedError, WorkerHandle, WorkerStartError, type WorkerLike } from './_worker-handle.js';
import { InOrderMerger } from './merge-chaining-values.js';
import { DEFAULT_SUBTREE_BYTES, isSubtreeSize, planSubtrees, subtreeRange, type SubtreePlan, type SubtreeRange } from './plan-subtrees.js';
import type { FileSnapshot, HashTask, TaskSource } from './protocol.js';

export type { WorkerLike } from './_worker-handle.js';

export type PoolOpts = {
  /** Workers (default: the reported parallelism, at most MAX_DEFAULT_POOL_SIZE). */
  size?: number;
  /** Largest subtree one task hashes: a power of two from 1024 to 2^30 (default 16 MiB). */
  subtreeBytes?: number;
  /**
   * Starts one worker running `@blake3-web/worker/worker`. Bundled apps pass their own, e.g.
   * `() => new Worker(new URL('@blake3-web/worker/worker', import.meta.url), { type: 'module' })`
   * in Vite; in Node a `worker_threads` Worker on the built worker file works too.
   */
  createWorker?: () => WorkerLike;
};

export type HashFileOpts = Blake3Opts & {
  /** Aborting rejects the hash with `signal.reason`; no new work starts for it. */
  signal?: AbortSignal;
  /** Called as subtrees finish: bytesDone only grows, and the last call has bytesDone === total. */
  onProgress?: (bytesDone: number, total: number) => void;
};

export interface Pool {
  /** The BLAKE3 hash of a Blob or File (`opts.dkLen` bytes, default 32), as `blake3()` gives it. */
  hashBlob(blob: Blob, opts?: HashFileOpts): Promise<Uint8Array>;
  /** Like hashBlob; in Node also a file path, which the workers read themselves. */
  hashFile(file: Blob | string, opts?: HashFileOpts): Promise<Uint8Array>;
  /** Stops every worker; pending hashes reject with an AbortError, later ones with an InvalidStateError. */
  terminate(): void;
}

/**
 * At most this many workers by default. On the 2-core machine of docs/worker-pool.md, pools
 * larger than the core count bought nothing and cost 2 subtrees of memory per worker each;
 * WebKit reports 4 cores there, so the reported number alone is not trusted beyond this.
 */
export const MAX_DEFAULT_POOL_SIZE = 4;

/** Subtrees in flight per worker: one being hashed while the next is read (docs/worker-pool.md). */
export const TASKS_PER_WORKER = 2;

/**
 * Inputs up to this size are hashed on the calling thread: a round trip to a worker costs about
 * as much as hashing this many bytes (docs/worker-pool.md), and the calling thread is blocked for
 * well under a millisecond.
 */
export const INLINE_MAX_BYTES = 64 * 1024;

/** Default for the liveness probe (see WorkerHandleOpts.livenessMs). */
const DEFAULT_LIVENESS_MS = 10_000;

/** Knobs tests turn; not part of the public options. */
export type PoolInternals = { livenessMs?: number };

/** A Blob with its size as read once when the hash started, or a file as stat saw it. */
type Input = { kind: 'blob'; blob: Blob; size: number } | { kind: 'file'; file: FileSnapshot };

/**
 * `blob` with its size read once and checked: a plan for a NaN, fractional or negative size never
 * ends, and every later step works from this one number (tasks check the Blob still has it).
 */
function blobInput(blob: Blob, name: string): Input {
  return { kind: 'blob', blob, size: anInteger(blob.size, `${name}.size`, 0, Number.MAX_SAFE_INTEGER) };
}

type Slot = { handle: WorkerHandle | undefined; inFlight: number };

/** Validated options of one hash. */
type JobOpts = { mode: SubtreeOpts; dkLen: number | undefined; signal?: AbortSignal; onProgress?: (bytesDone: number, total: number) => void };

function validateHashOpts(opts: unknown): JobOpts {
  if (opts === undefined) return { mode: {}, dkLen: undefined };
  if (typeof opts !== 'object' || opts === null) throw new TypeError(`opts must be an object, got ${describe(opts)}`);
  const { dkLen, key, context, signal, onProgress } = opts as HashFileOpts;
  const mode: SubtreeOpts = {};
  if (key !== undefined) mode.key = key;
  if (context !== undefined) mode.context = context;
  // The core checks dkLen, key and context exactly as blake3() does (same errors, same limits);
  // a hasher is the cheapest thing that runs those checks without making the output.
  blake3.create({ ...mode, dkLen });
  if (signal !== undefined && (typeof signal !== 'object' || signal === null || typeof signal.aborted !== 'boolean' || typeof signal.addEventListener !== 'function')) {
    throw new TypeError(`opts.signal must be an AbortSignal, got ${describe(signal)}`);
  }
  if (onProgress !== undefined) aFunction(onProgress, 'opts.onProgress');
  return { mode, dkLen, signal, onProgress };
}

/** One hashBlob call in progress. */
class HashJob {
  readonly plan: SubtreePlan;
  readonly input: Input;
  readonly opts: JobOpts;
  readonly promise: Promise<Uint8Array>;
  readonly #merger: InOrderMerger | undefined;
  readonly #window: number;
  readonly #retries: number[] = [];
  readonly #attempts = new Map<number, number>();
  readonly #onAbort: () => void;
  #nextIndex = 0;
  #bytesDone = 0;
  #settled = false;
  #resolve!: (hash: Uint8Array) => void;
  #reject!: (e: unknown) => void;
  readonly #onSettle: (job: HashJob) => void;

  constructor(input: Input, opts: JobOpts, plan: SubtreePlan, window: number, onSettle: (job: HashJob) => void) {
    this.input = input;
    this.opts = opts;
    this.plan = plan;
    this.#window = window;
    this.#onSettle = onSettle;
    this.#merger = plan.count > 1 ? new InOrderMerger(plan.count, opts.mode) : undefined;
    this.promise = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.#onAbort = () => this.fail(opts.signal!.reason);
    opts.signal?.addEventListener('abort', this.#onAbort, { once: true });
  }

  get settled(): boolean {
    return this.#settled;
  }

  /** Whether a task can start now: a retry, or the next subtree within the window. */
  get hasTask(): boolean {
    if (this.#settled) return false;
    if (this.#retries.length > 0) return true;
    const merged = this.#merger?.next ?? 0;
    return this.#nextIndex < this.plan.count && this.#nextIndex < merged + this.#window;
  }

  takeTask(): SubtreeRange {
    const index = this.#retries.shift() ?? this.#nextIndex++;
    return subtreeRange(this.plan, index);
  }

  /** The message for a task, and what it transfers. Reads the bytes here when Blobs cannot be posted. */
  async makeTask(range: SubtreeRange, blobTransport: Platform['blobTransport']): Promise<[HashTask, Transferable[]]> {
    const output = this.plan.count === 1 ? 'root' : 'subtree';
    const opts: Blake3Opts = output === 'root' && this.opts.dkLen !== undefined ? { ...this.opts.mode, dkLen: this.opts.dkLen } : this.opts.mode;
    let source: TaskSource;
    let transferList: Transferable[] = [];
    if (this.input.kind === 'file') source = { kind: 'file', file: this.input.file };
    else if (blobTransport === 'blob') source = { kind: 'blob', blob: this.input.blob, size: this.input.size };
    else {
      const bytes = await readBlobRange(this.input.blob, range.start, range.end);
      source = { kind: 'bytes', bytes };
      transferList = [bytes.buffer];
    }
    return [{ source, start: range.start, end: range.end, output, opts }, transferList];
  }

  /** Takes a task's answer: a chaining value, or the hash itself for a one-task plan. */
  accept(range: SubtreeRange, out: Uint8Array): void {
    if (this.#settled) return;
    try {
      // A worker that is not ours (createWorker) must not slip a wrong-sized value into a hash.
      const expected = this.#merger === undefined ? (this.opts.dkLen ?? 32) : 32;
      if (!(out instanceof Uint8Array) || out.length !== expected) {
        throw new TypeError(`the worker answered ${describe(out)} for bytes [${range.start}, ${range.end}), not ${expected} bytes`);
      }
      if (this.#merger === undefined) {
        this.#progress(range.end - range.start);
        return this.#finish(out);
      }
      this.#merger.accept(range.index, out);
      this.#progress(range.end - range.start);
      if (this.#merger.done) this.#finish(this.#merger.finalize(this.opts.dkLen));
    } catch (e) {
      this.fail(e);
    }
  }

  /** A worker died under this task: run it once more, or give up. */
  retryOrFail(range: SubtreeRange, e: WorkerDiedError): void {
    // A worker that cannot start fails its replacement the same way.
    if (e instanceof WorkerStartError) return this.fail(e);
    const attempts = this.#attempts.get(range.index) ?? 0;
    if (attempts >= 1) {
      return this.fail(new WorkerDiedError(`a worker stopped twice while hashing bytes [${range.start}, ${range.end}): ${e.message}`, { cause: e }));
    }
    this.#attempts.set(range.index, attempts + 1);
    this.#retries.push(range.index);
  }

  fail(e: unknown): void {
    if (this.#settled) return;
    this.#settle();
    this.#reject(e);
  }

  #progress(bytes: number): void {
    this.#bytesDone += bytes;
    this.opts.onProgress?.(this.#bytesDone, this.plan.total);
  }

  #finish(hash: Uint8Array): void {
    this.#settle();
    this.#resolve(hash);
  }

  #settle(): void {
    this.#settled = true;
    this.opts.signal?.removeEventListener('abort', this.#onAbort);
    this.#onSettle(this);
  }
}

class WorkerPool implements Pool {
  readonly #platform: Platform;
  readonly #slots: Slot[];
  readonly #subtreeBytes: number;
  readonly #createWorker: () => WorkerLike;
  readonly #livenessMs: number;
  readonly #jobs: HashJob[] = [];
  #turn = 0;
  #terminated = false;

  constructor(platform: Platform, size: number, subtreeBytes: number, createWorker: () => WorkerLike, internals: PoolInternals) {
    this.#platform = platform;
    this.#slots = Array.from({ length: size }, () => ({ handle: undefined, inFlight: 0 }));
    this.#subtreeBytes = subtreeBytes;
    this.#createWorker = createWorker;
    this.#livenessMs = internals.livenessMs ?? DEFAULT_LIVENESS_MS;
  }

  hashBlob(blob: Blob, opts?: HashFileOpts): Promise<Uint8Array> {
    return this.#hash(() => {
      if (!isBlob(blob)) throw new TypeError(`blob must be a Blob or File, got ${describe(blob)}`);
      return blobInput(blob, 'blob');
    }, opts);
  }

  hashFile(file: Blob | string, opts?: HashFileOpts): Promise<Uint8Array> {
    if (typeof file !== 'string') {
      return this.#hash(() => {
        if (!isBlob(file)) throw new TypeError(`file must be a Blob, a File or a path string, got ${describe(file)}`);
        return blobInput(file, 'file');
      }, opts);
    }
    return this.#hash(async () => {
      if (file === '') throw new TypeError('file must be a Blob, a File or a path string, got an empty string');
      return { kind: 'file', file: await this.#platform.snapshotFile(file) };
    }, opts);
  }

  terminate(): void {
    if (this.#terminated) return;
    this.#terminated = true;
    const reason = new DOMException('the worker pool was terminated', 'AbortError');
    for (const job of [...this.#jobs]) job.fail(reason);
    for (const slot of this.#slots) {
      slot.handle?.terminate(reason);
      slot.handle = undefined;
    }
  }

  async #hash(getInput: () => Input | Promise<Input>, opts: unknown): Promise<Uint8Array> {
    if (this.#terminated) throw new DOMException('the worker pool was terminated', 'InvalidStateError');
    const jobOpts = validateHashOpts(opts);
    jobOpts.signal?.throwIfAborted();
    const input = await getInput();
    jobOpts.signal?.throwIfAborted();
    // Terminated while this call was finding its input: it was pending, so it is aborted.
    if (this.#terminated) throw new DOMException('the worker pool was terminated', 'AbortError');
    const total = input.kind === 'blob' ? input.size : input.file.size;
    if (total <= INLINE_MAX_BYTES) return this.#hashInline(input, total, jobOpts);
    const plan = planSubtrees(total, this.#subtreeBytes, this.#slots.length);
    const window = 2 * this.#slots.length * TASKS_PER_WORKER;
    const job = new HashJob(input, jobOpts, plan, window, (j) => this.#remove(j));
    this.#jobs.push(job);
    this.#pump();
    return job.promise;
  }

  async #hashInline(input: Input, total: number, opts: JobOpts): Promise<Uint8Array> {
    const hashOpts: Blake3Opts = opts.dkLen === undefined ? opts.mode : { ...opts.mode, dkLen: opts.dkLen };
    let hash: Uint8Array;
    if (total === 0) hash = blake3(new Uint8Array(0), hashOpts);
    else {
      // The worker's own task code, run here.
      const source: TaskSource = input.kind === 'blob' ? { kind: 'blob', blob: input.blob, size: input.size } : { kind: 'file', file: input.file };
      hash = await hashRange({ source, start: 0, end: total, output: 'root', opts: hashOpts }, this.#platform.openFile);
    }
    opts.signal?.throwIfAborted();
    opts.onProgress?.(total, total);
    return hash;
  }

  #remove(job: HashJob): void {
    const i = this.#jobs.indexOf(job);
    if (i >= 0) this.#jobs.splice(i, 1);
  }

  /** Starts tasks while some job has one and some worker has room, taking jobs in turn. */
  #pump(): void {
    while (!this.#terminated) {
      const slot = this.#leastBusySlot();
      if (slot === undefined) return;
      const job = this.#nextJobWithTask();
      if (job === undefined) return;
      void this.#run(job, slot, job.takeTask());
    }
  }

  #leastBusySlot(): Slot | undefined {
    let best: Slot | undefined;
    for (const slot of this.#slots) {
      if (slot.inFlight < TASKS_PER_WORKER && (best === undefined || slot.inFlight < best.inFlight)) best = slot;
    }
    return best;
  }

  #nextJobWithTask(): HashJob | undefined {
    for (let i = 0; i < this.#jobs.length; i++) {
      const job = this.#jobs[(this.#turn + i) % this.#jobs.length];
      if (job.hasTask) {
        this.#turn = (this.#turn + i + 1) % this.#jobs.length;
        return job;
      }
    }
    return undefined;
  }

  async #run(job: HashJob, slot: Slot, range: SubtreeRange): Promise<void> {
    slot.inFlight++;
    try {
      const [task, transferList] = await job.makeTask(range, this.#platform.blobTransport);
      if (job.settled || this.#terminated) return;
      const handle = (slot.handle ??= this.#spawn(slot));
      const out = await handle.hashRange(task, transferList);
      job.accept(range, out);
    } catch (e) {
      if (e instanceof WorkerDiedError && !this.#terminated) job.retryOrFail(range, e);
      else job.fail(e);
    } finally {
      slot.inFlight--;
      this.#pump();
    }
  }

  #spawn(slot: Slot): WorkerHandle {
    const worker = this.#createWorker();
    if (typeof worker !== 'object' || worker === null || typeof (worker as { postMessage?: unknown }).postMessage !== 'function') {
      throw new TypeError(`createWorker must return a Worker, got ${describe(worker)}`);
    }
    return new WorkerHandle(worker, {
      nodeWorkerEndpoint: this.#platform.nodeWorkerEndpoint,
      livenessMs: this.#livenessMs,
      onDeath: (handle) => {
        // The dead worker's calls reject on their own; the next task starts a fresh worker.
        if (slot.handle === handle) slot.handle = undefined;
      },
    });
  }
}

/** Creates a pool on `platform`; the package's entry points bind the platform (browser.ts, node.ts). */
export function createPoolOn(platform: Platform, opts?: PoolOpts, internals: PoolInternals = {}): Pool {
  if (opts !== undefined && (typeof opts !== 'object' || opts === null)) throw new TypeError(`opts must be an object, got ${describe(opts)}`);
  const { size, subtreeBytes, createWorker } = opts ?? {};
  const workers = size === undefined ? Math.max(1, Math.min(MAX_DEFAULT_POOL_SIZE, platform.reportedParallelism())) : anInteger(size, 'opts.size', 1, 256);
  if (subtreeBytes !== undefined) {
    anInteger(subtreeBytes, 'opts.subtreeBytes', 1024, 2 ** 30);
    if (!isSubtreeSize(subtreeBytes)) throw new RangeError(`opts.subtreeBytes must be a power of two from 1024 to 2^30, got ${subtreeBytes}`);
  }
  const spawn = createWorker === undefined ? () => platform.spawnDefaultWorker() : aFunction<() => WorkerLike>(createWorker, 'opts.createWorker');
  return new WorkerPool(platform, workers, subtreeBytes ?? DEFAULT_SUBTREE_BYTES, spawn, internals);
}
