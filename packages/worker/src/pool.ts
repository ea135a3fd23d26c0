/**
 * The worker pool: each hash is a job (hash-job.ts) that cuts its input into power-of-two
 * subtrees (plan-subtrees.ts) and merges their chaining values in order on this thread
 * (merge-chaining-values.ts); the pool runs the jobs' tasks in workers, a bounded number at a
 * time, taking jobs in turn.
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
import { blake3 } from '@blake3-web/core';
import { transfer } from 'comlink';
import { aFunction, anInteger, describe } from './_assert.js';
import { WorkerDiedError } from './_errors.js';
import { hashRange } from './_hash-range.js';
import { STALL_MS } from './_read-or-stall.js';
import type { Platform, WorkerLike } from './_platform.js';
import { WorkerHandle } from './_worker-handle.js';
import {
  HashJob,
  inputSize,
  inputSource,
  jobInput,
  jobOpts,
  type HashFileOpts,
  type JobInput,
  type JobOpts,
} from './hash-job.js';
import { DEFAULT_SUBTREE_BYTES, isSubtreeSize, planSubtrees, type SubtreeRange } from './plan-subtrees.js';
import type { WorkerApi } from './protocol.js';

export type { WorkerLike } from './_platform.js';
export type { HashFileOpts } from './hash-job.js';

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

/** Tasks in flight per worker: one being hashed while the next is read (docs/worker-pool.md). */
export const IN_FLIGHT_PER_WORKER = 2;

/**
 * Inputs up to this size are hashed on the calling thread: a round trip to a worker costs about
 * as much as hashing this many bytes (docs/worker-pool.md), and the calling thread is blocked for
 * well under a millisecond.
 */
export const INLINE_MAX_BYTES: number = 64 * 1024;

/** Default for the liveness probe (see WorkerHandleOpts.livenessMs). */
const DEFAULT_LIVENESS_MS = 10_000;

/** Knobs tests turn; not part of the public options. */
export type PoolInternals = {
  livenessMs?: number;
  /** How long a read on this thread may bring nothing (default STALL_MS). */
  stallMs?: number;
};

/** A worker, started on first use, and the tasks it has in flight. */
type Slot = { handle: PoolWorker | undefined; inFlight: number };

type PoolWorker = WorkerHandle<WorkerApi, WorkerLike>;

/**
 * The scheduler: a fixed set of worker slots, each taking up to IN_FLIGHT_PER_WORKER tasks;
 * the jobs in progress, which give out tasks in turn; workers started on first use and again
 * after one dies.
 */
class WorkerPool implements Pool {
  readonly #platform: Platform;
  readonly #slots: Slot[];
  readonly #subtreeBytes: number;
  readonly #createWorker: () => WorkerLike;
  readonly #livenessMs: number;
  readonly #stallMs: number;
  readonly #jobs: HashJob[] = [];
  #turn = 0;
  #terminated = false;

  constructor(
    platform: Platform,
    size: number,
    subtreeBytes: number,
    createWorker: () => WorkerLike,
    internals: PoolInternals,
  ) {
    this.#platform = platform;
    this.#slots = Array.from({ length: size }, () => ({ handle: undefined, inFlight: 0 }));
    this.#subtreeBytes = subtreeBytes;
    this.#createWorker = createWorker;
    this.#livenessMs = internals.livenessMs ?? DEFAULT_LIVENESS_MS;
    this.#stallMs = internals.stallMs ?? STALL_MS;
  }

  hashBlob(blob: Blob, opts?: HashFileOpts): Promise<Uint8Array> {
    return this.#hash(blob, 'blob', opts);
  }

  hashFile(file: Blob | string, opts?: HashFileOpts): Promise<Uint8Array> {
    return this.#hash(file, 'file', opts);
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

  async #hash(value: unknown, name: 'blob' | 'file', opts: unknown): Promise<Uint8Array> {
    if (this.#terminated) throw new DOMException('the worker pool was terminated', 'InvalidStateError');
    const checked = jobOpts(opts);
    checked.signal?.throwIfAborted();
    const input = await jobInput(value, name, (path) => this.#platform.snapshotFile(path));
    checked.signal?.throwIfAborted();
    // Terminated while this call was finding its input: it was pending, so it is aborted.
    if (this.#terminated) throw new DOMException('the worker pool was terminated', 'AbortError');
    const total = inputSize(input);
    if (total <= INLINE_MAX_BYTES) return this.#hashInline(input, total, checked);
    const plan = planSubtrees(total, this.#subtreeBytes, this.#slots.length);
    // Tasks may run this far ahead of the first unmerged subtree: twice what the workers hold.
    const window = 2 * this.#slots.length * IN_FLIGHT_PER_WORKER;
    const job = new HashJob(input, checked, plan, window, (j) => this.#remove(j));
    this.#jobs.push(job);
    this.#pump();
    return job.promise;
  }

  async #hashInline(input: JobInput, total: number, opts: JobOpts): Promise<Uint8Array> {
    // An empty input has no range to read; any other is the worker's own task code, run here.
    const hash =
      total === 0
        ? blake3(new Uint8Array(0), opts.taskOpts)
        : await hashRange(
            { source: inputSource(input), start: 0, end: total, output: 'root', opts: opts.taskOpts },
            this.#platform.openFile,
          );
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
      if (slot.inFlight < IN_FLIGHT_PER_WORKER && (best === undefined || slot.inFlight < best.inFlight)) best = slot;
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
      const [task, transferList] = await job.makeTask(range, this.#platform.blobTransport, this.#stallMs);
      if (job.settled || this.#terminated) return;
      const handle = (slot.handle ??= this.#spawn(slot));
      // The transfer list moves buffers instead of copying them.
      const message = transferList.length > 0 ? transfer(task, transferList) : task;
      const out = await handle.call((w) => w.hashRange(message));
      job.accept(range, out);
    } catch (e) {
      if (e instanceof WorkerDiedError && !this.#terminated) job.retryOrFail(range, e);
      else job.fail(e);
    } finally {
      slot.inFlight--;
      this.#pump();
    }
  }

  #spawn(slot: Slot): PoolWorker {
    const worker = this.#createWorker();
    if (
      typeof worker !== 'object' ||
      worker === null ||
      typeof (worker as { postMessage?: unknown }).postMessage !== 'function'
    ) {
      throw new TypeError(`createWorker must return a Worker, got ${describe(worker)}`);
    }
    const handle: PoolWorker = new WorkerHandle(worker, {
      adapt: this.#platform.adaptWorker,
      livenessMs: this.#livenessMs,
      onDeath: () => {
        // The dead worker's calls reject on their own; the next task starts a fresh worker.
        if (slot.handle === handle) slot.handle = undefined;
      },
    });
    return handle;
  }
}

/** Creates a pool on `platform`; the package's entry points bind the platform (browser.ts, node.ts). */
export function createPoolOn(platform: Platform, opts?: PoolOpts, internals: PoolInternals = {}): Pool {
  if (opts !== undefined && (typeof opts !== 'object' || opts === null))
    throw new TypeError(`opts must be an object, got ${describe(opts)}`);
  const { size, subtreeBytes, createWorker } = opts ?? {};
  const workers =
    size === undefined
      ? Math.max(1, Math.min(MAX_DEFAULT_POOL_SIZE, platform.reportedParallelism()))
      : anInteger(size, 'opts.size', 1, 256);
  if (subtreeBytes !== undefined) {
    anInteger(subtreeBytes, 'opts.subtreeBytes', 1024, 2 ** 30);
    if (!isSubtreeSize(subtreeBytes))
      throw new RangeError(`opts.subtreeBytes must be a power of two from 1024 to 2^30, got ${subtreeBytes}`);
  }
  const spawn =
    createWorker === undefined
      ? () => platform.spawnDefaultWorker()
      : aFunction<() => WorkerLike>(createWorker, 'opts.createWorker');
  return new WorkerPool(platform, workers, subtreeBytes ?? DEFAULT_SUBTREE_BYTES, spawn, internals);
}
