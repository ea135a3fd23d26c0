/**
 * One hash on the pool: its input and options, checked once; its plan of subtrees; the tasks it
 * has to give out (retries first); their answers merged in order; progress; abort. It knows
 * nothing of workers: the scheduler (pool.ts) runs its tasks and hands back what they gave.
 * @module
 */
import type { Blake3Opts } from '@blake3-web/core';
import { Mode } from '@blake3-web/core/hazmat';
import { aFunction, anInteger, describe, isBlob } from './_assert.js';
import { WorkerDiedError, WorkerStartError } from './_errors.js';
import type { Platform } from './_platform.js';
import { readBlobRange } from './_range-readers.js';
import { InOrderMerger } from './merge-chaining-values.js';
import { subtreeRange, type SubtreePlan, type SubtreeRange } from './plan-subtrees.js';
import type { FileSnapshot, HashTask, TaskSource } from './protocol.js';

export type HashFileOpts = Blake3Opts & {
  /** Aborting rejects the hash with `signal.reason`; no new work starts for it. */
  signal?: AbortSignal;
  /** Called as subtrees finish: bytesDone only grows, and the last call has bytesDone === total. */
  onProgress?: (bytesDone: number, total: number) => void;
};

/** A Blob with its size as read once when the hash started, or a file as stat saw it. */
export type JobInput = { kind: 'blob'; blob: Blob; size: number } | { kind: 'file'; file: FileSnapshot };

/** The options of one hash, checked. */
export type JobOpts = {
  /** The mode resolved once, with the hash's dkLen: every merge on this thread uses it. */
  readonly mode: Mode;
  /** The same options as plain data, for the workers' tasks. */
  readonly taskOpts: Blake3Opts;
  readonly signal?: AbortSignal;
  readonly onProgress?: (bytesDone: number, total: number) => void;
};

/** Checks the options of a hash: the mode and dkLen exactly as blake3() checks them (same errors, same limits). */
export function jobOpts(opts: unknown): JobOpts {
  if (opts === undefined) return { mode: new Mode(), taskOpts: {} };
  if (typeof opts !== 'object' || opts === null) throw new TypeError(`opts must be an object, got ${describe(opts)}`);
  const { signal, onProgress } = opts as HashFileOpts;
  const mode = new Mode(opts as HashFileOpts);
  // As plain data for the workers, which resolve their own Mode of it.
  const taskOpts = mode.options;
  if (
    signal !== undefined &&
    (typeof signal !== 'object' ||
      signal === null ||
      typeof signal.aborted !== 'boolean' ||
      typeof signal.addEventListener !== 'function')
  ) {
    throw new TypeError(`opts.signal must be an AbortSignal, got ${describe(signal)}`);
  }
  if (onProgress !== undefined) aFunction(onProgress, 'opts.onProgress');
  return { mode, taskOpts, signal, onProgress };
}

/**
 * The input of a hash: a Blob with its size read once and checked (a plan for a NaN, fractional
 * or negative size never ends, and every later step works from this one number; tasks check
 * the Blob still has it), or a file path as `snapshotFile` sees it where paths are accepted.
 */
export async function jobInput(
  input: unknown,
  name: 'blob' | 'file',
  snapshotFile: Platform['snapshotFile'],
): Promise<JobInput> {
  if (isBlob(input))
    return { kind: 'blob', blob: input, size: anInteger(input.size, `${name}.size`, 0, Number.MAX_SAFE_INTEGER) };
  if (name === 'blob') throw new TypeError(`blob must be a Blob or File, got ${describe(input)}`);
  if (typeof input !== 'string')
    throw new TypeError(`file must be a Blob, a File or a path string, got ${describe(input)}`);
  if (input === '') throw new TypeError('file must be a Blob, a File or a path string, got an empty string');
  return { kind: 'file', file: await snapshotFile(input) };
}

/** The input's length in bytes. */
export function inputSize(input: JobInput): number {
  return input.kind === 'blob' ? input.size : input.file.size;
}

/** Where a task reads the input: the Blob or the file itself. */
export function inputSource(input: JobInput): TaskSource {
  return input.kind === 'blob'
    ? { kind: 'blob', blob: input.blob, size: input.size }
    : { kind: 'file', file: input.file };
}

/** One hash in progress. */
export class HashJob {
  readonly plan: SubtreePlan;
  readonly input: JobInput;
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

  /** `window`: how far past the first unmerged subtree tasks may run; `onSettle` once it resolves or rejects. */
  constructor(input: JobInput, opts: JobOpts, plan: SubtreePlan, window: number, onSettle: (job: HashJob) => void) {
    this.input = input;
    this.opts = opts;
    this.plan = plan;
    this.#window = window;
    this.#onSettle = onSettle;
    this.#merger = plan.count > 1 ? new InOrderMerger(plan, window, opts.mode) : undefined;
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

  /**
   * The message for a task, and what it transfers. Reads the bytes here when Blobs cannot be
   * posted; such a read that brings nothing for `stallMs` fails with a NotReadableError.
   */
  async makeTask(
    range: SubtreeRange,
    blobTransport: Platform['blobTransport'],
    stallMs: number,
  ): Promise<[HashTask, Transferable[]]> {
    const output = this.plan.count === 1 ? 'root' : 'subtree';
    let source: TaskSource;
    let transferList: Transferable[] = [];
    if (this.input.kind === 'blob' && blobTransport === 'bytes') {
      const bytes = await readBlobRange(this.input.blob, range.start, range.end, stallMs);
      source = { kind: 'bytes', bytes };
      transferList = [bytes.buffer];
    } else source = inputSource(this.input);
    return [{ source, start: range.start, end: range.end, output, opts: this.opts.taskOpts }, transferList];
  }

  /** Takes a task's answer: a chaining value, or the hash itself for a one-task plan. */
  accept(range: SubtreeRange, out: Uint8Array): void {
    if (this.#settled) return;
    try {
      // A worker that is not ours (createWorker) must not slip a wrong-sized value into a hash.
      const expected = this.#merger === undefined ? this.opts.mode.dkLen : 32;
      if (!(out instanceof Uint8Array) || out.length !== expected) {
        throw new TypeError(
          `the worker answered ${describe(out)} for bytes [${range.start}, ${range.end}), not ${expected} bytes`,
        );
      }
      if (this.#merger === undefined) {
        this.#progress(range.end - range.start);
        return this.#finish(out);
      }
      this.#merger.accept(range.index, out);
      this.#progress(range.end - range.start);
      if (this.#merger.done) this.#finish(this.#merger.finalize());
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
      return this.fail(
        new WorkerDiedError(`a worker stopped twice while hashing bytes [${range.start}, ${range.end}): ${e.message}`, {
          cause: e,
        }),
      );
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
