// One live worker as the pool sees it: a comlink proxy, the calls waiting on it, and the ways
// it can die. A worker that dies never answers its pending calls, so every way of noticing a
// death (what the platform reports, a liveness probe that goes unanswered) ends them all with a
// WorkerDiedError instead of leaving them to hang.
import { transfer, wrap, type Remote } from 'comlink';
import { reviveError, WorkerDiedError } from './_errors.js';
import type { AdaptWorker, WorkerLike, WorkerPort } from './_platform.js';
import type { HashTask, WorkerApi } from './protocol.js';

export type WorkerHandleOpts = {
  /** The platform's adapter for its workers. */
  readonly adaptWorker: AdaptWorker;
  /**
   * How long a worker with calls pending may stay silent before it is probed, and how long a
   * probe may go unanswered before the worker counts as dead. Browsers report no event when a
   * worker is killed from outside, so this is how such a death is noticed there.
   */
  readonly livenessMs: number;
  readonly onDeath: (handle: WorkerHandle, reason: WorkerDiedError) => void;
};

export class WorkerHandle {
  readonly #port: WorkerPort;
  readonly #remote: Remote<WorkerApi>;
  readonly #opts: WorkerHandleOpts;
  readonly #pending = new Set<(e: Error) => void>();
  #dead: WorkerDiedError | undefined;
  #lastHeard = Date.now();
  #probeSentAt: number | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(worker: WorkerLike, opts: WorkerHandleOpts) {
    this.#opts = opts;
    this.#port = opts.adaptWorker(worker, (reason) => this.#die(reason));
    this.#remote = wrap<WorkerApi>(this.#port.endpoint);
    this.#setBusy(false);
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

  #die(reason: WorkerDiedError): void {
    if (this.#dead) return;
    this.#stop(reason);
    this.#opts.onDeath(this, reason);
  }

  #stop(reason: Error): void {
    if (this.#dead) return;
    this.#dead = reason instanceof WorkerDiedError ? reason : new WorkerDiedError(reason.message, { cause: reason });
    this.#setBusy(false);
    // Terminating an already dead worker is harmless; a live one must not keep hashing for nobody.
    void Promise.resolve()
      .then(() => this.#port.terminate())
      .catch(() => undefined);
    const rejects = [...this.#pending];
    this.#pending.clear();
    for (const reject of rejects) reject(reason);
  }

  #setBusy(busy: boolean): void {
    this.#port.setBusy(busy);
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
      if (now - this.#probeSentAt >= this.#opts.livenessMs)
        this.#die(new WorkerDiedError(`the worker did not answer for ${now - this.#lastHeard} ms`));
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
