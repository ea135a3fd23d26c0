// One live worker as the pool sees it: a comlink proxy, the calls waiting on it, and the ways
// it can die. A worker that dies never answers its pending calls, so every way of noticing a
// death (Node's 'exit', a Web Worker's 'error', a liveness probe that goes unanswered) ends
// them all with a WorkerDiedError instead of leaving them to hang.
import { transfer, wrap, type Endpoint, type Remote } from 'comlink';
import { reviveError } from './_errors.js';
import type { HashTask, WorkerApi } from './protocol.js';

/** A worker_threads Worker, structurally (the public types do not depend on Node's). */
export type NodeWorkerLike = {
  postMessage(message: unknown, transfer?: readonly unknown[]): void;
  on(type: string, listener: (...args: never[]) => void): unknown;
  off(type: string, listener: (...args: never[]) => void): unknown;
  terminate(): unknown;
  ref?(): void;
  unref?(): void;
};

/** What `createWorker` may return: a Web Worker, or a worker_threads Worker in Node. */
export type WorkerLike = Worker | NodeWorkerLike;

/** A worker stopped (crashed, was terminated, ran out of memory, stopped answering) before answering. */
export class WorkerDiedError extends Error {
  override name = 'WorkerDiedError';
}

/**
 * The pool's default worker could not be started at all (its script would not load): starting
 * another would fail the same way, so the hash fails at once. The message names the fix.
 */
export class WorkerStartError extends WorkerDiedError {
  override name = 'WorkerStartError';
}

function isNodeWorker(w: WorkerLike): w is NodeWorkerLike {
  return typeof (w as NodeWorkerLike).on === 'function' && typeof (w as Worker).addEventListener !== 'function';
}

export type WorkerHandleOpts = {
  /** comlink's endpoint over a worker_threads Worker (the platform's node adapter). */
  readonly nodeWorkerEndpoint: (worker: NodeWorkerLike) => Endpoint;
  /**
   * How long a worker with calls pending may stay silent before it is probed, and how long a
   * probe may go unanswered before the worker counts as dead. Browsers report no event when a
   * worker is killed from outside, so this is how such a death is noticed there.
   */
  readonly livenessMs: number;
  readonly onDeath: (handle: WorkerHandle, reason: WorkerDiedError) => void;
};

export class WorkerHandle {
  readonly #worker: WorkerLike;
  readonly #remote: Remote<WorkerApi>;
  readonly #opts: WorkerHandleOpts;
  readonly #pending = new Set<(e: Error) => void>();
  #dead: WorkerDiedError | undefined;
  #lastHeard = Date.now();
  #probeSentAt: number | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(worker: WorkerLike, opts: WorkerHandleOpts) {
    this.#worker = worker;
    this.#opts = opts;
    let endpoint: Endpoint;
    if (isNodeWorker(worker)) {
      const onExit = (code: number) => this.#die(`the worker exited with code ${code}`);
      const onError = (e: Error) => this.#die(`the worker failed: ${e?.message ?? String(e)}`, e);
      // The listeners stay for the worker's whole life: a worker terminated while its script was
      // still loading can emit 'error' afterwards, and an 'error' nobody listens to would crash
      // the process. After the first death they do nothing.
      worker.on('exit', onExit);
      worker.on('error', onError);
      endpoint = opts.nodeWorkerEndpoint(worker);
    } else {
      // An 'error' event is an uncaught error in the worker (comlink catches the ones from calls),
      // e.g. its script failed to load; 'messageerror' means an answer could not be read.
      const onError = (e: Event) => {
        e.preventDefault();
        const { error, message } = e as ErrorEvent;
        if (error instanceof WorkerStartError) this.#die(error);
        else this.#die(`the worker failed: ${message || 'error event'}`);
      };
      const onMessageError = () => this.#die('a message from the worker could not be deserialized');
      worker.addEventListener('error', onError);
      worker.addEventListener('messageerror', onMessageError);
      endpoint = worker;
    }
    this.#remote = wrap<WorkerApi>(endpoint);
    this.#setBusy(false);
  }

  /** Calls waiting for this worker. */
  get pending(): number {
    return this.#pending.size;
  }

  get dead(): boolean {
    return this.#dead !== undefined;
  }

  /** Runs a task; the transfer list moves buffers instead of copying them. */
  hashRange(task: HashTask, transferList: Transferable[] = []): Promise<Uint8Array> {
    if (this.#dead) return Promise.reject(this.#dead);
    return new Promise<Uint8Array>((resolve, reject) => {
      this.#pending.add(reject);
      this.#setBusy(true);
      const settle = () => {
        this.#lastHeard = Date.now();
        this.#pending.delete(reject);
        if (this.#pending.size === 0) this.#setBusy(false);
      };
      const message = transferList.length > 0 ? transfer(task, transferList) : task;
      this.#remote.hashRange(message).then(
        (cv) => {
          settle();
          resolve(cv);
        },
        (e: unknown) => {
          settle();
          reject(reviveError(e));
        },
      );
    });
  }

  /** Stops the worker; pending calls reject with `reason`. */
  terminate(reason: Error = new WorkerDiedError('the worker was terminated')): void {
    this.#stop(reason);
  }

  #die(why: string | WorkerDiedError, cause?: unknown): void {
    if (this.#dead) return;
    const reason = typeof why !== 'string' ? why : new WorkerDiedError(why, cause === undefined ? undefined : { cause });
    this.#stop(reason);
    this.#opts.onDeath(this, reason);
  }

  #stop(reason: Error): void {
    if (this.#dead) return;
    this.#dead = reason instanceof WorkerDiedError ? reason : new WorkerDiedError(reason.message, { cause: reason });
    this.#setBusy(false);
    // Terminating an already dead worker is harmless; a live one must not keep hashing for nobody.
    void Promise.resolve()
      .then(() => this.#worker.terminate())
      .catch(() => undefined);
    const rejects = [...this.#pending];
    this.#pending.clear();
    for (const reject of rejects) reject(reason);
  }

  #setBusy(busy: boolean): void {
    // Node: an idle worker must not keep the process alive; a busy one must, or a script awaiting
    // a hash at top level would exit before the answer came.
    if (isNodeWorker(this.#worker)) {
      if (busy) this.#worker.ref?.();
      else this.#worker.unref?.();
    }
    if (busy && this.#timer === undefined && !this.#dead) {
      this.#lastHeard = Date.now();
      this.#timer = setInterval(() => this.#checkLiveness(), Math.max(1, this.#opts.livenessMs / 2));
      (this.#timer as { unref?: () => void }).unref?.();
    } else if (!busy && this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
      this.#probeSentAt = undefined;
    }
  }

  #checkLiveness(): void {
    const now = Date.now();
    if (this.#probeSentAt !== undefined) {
      if (now - this.#probeSentAt >= this.#opts.livenessMs) this.#die(`the worker did not answer for ${now - this.#lastHeard} ms`);
      return;
    }
    if (now - this.#lastHeard < this.#opts.livenessMs) return;
    const sentAt = (this.#probeSentAt = now);
    this.#remote.ping().then(
      () => {
        if (this.#probeSentAt === sentAt) this.#probeSentAt = undefined;
        this.#lastHeard = Date.now();
      },
      () => undefined,
    );
  }
}
