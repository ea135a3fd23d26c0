// One live worker as the pool sees it: a comlink proxy, the calls waiting on it, and the ways
// it can die. A worker that dies never answers its pending calls, so every way of noticing a
// death (what the platform reports, a liveness probe that goes unanswered) ends them all with a
// WorkerDiedError instead of leaving them to hang.
import { transfer, wrap, type Remote } from 'comlink';
import { reviveError, WorkerDiedError } from './_errors.js';
import { LivenessProbe } from './_liveness.js';
import type { AdaptWorker, WorkerLike, WorkerPort } from './_platform.js';
import type { HashTask, WorkerApi } from './protocol.js';

export type WorkerHandleOpts = {
  /** The platform's adapter for its workers. */
  readonly adaptWorker: AdaptWorker;
  /**
   * How long a worker with calls pending may stay silent before it is probed, and how long a
   * probe may go unanswered before the worker counts as dead (see _liveness.ts).
   */
  readonly livenessMs: number;
  readonly onDeath: (handle: WorkerHandle, reason: WorkerDiedError) => void;
};

export class WorkerHandle {
  readonly #port: WorkerPort;
  readonly #remote: Remote<WorkerApi>;
  readonly #opts: WorkerHandleOpts;
  readonly #pending = new Set<(e: Error) => void>();
  readonly #liveness: LivenessProbe;
  #dead: WorkerDiedError | undefined;

  constructor(worker: WorkerLike, opts: WorkerHandleOpts) {
    this.#opts = opts;
    this.#port = opts.adaptWorker(worker, (reason) => this.#die(reason));
    this.#remote = wrap<WorkerApi>(this.#port.endpoint);
    this.#liveness = new LivenessProbe(
      opts.livenessMs,
      () => this.#remote.ping(),
      (silentMs) => this.#die(new WorkerDiedError(`the worker did not answer for ${silentMs} ms`)),
    );
    this.#setBusy(false);
  }

  /** Runs a task; the transfer list moves buffers instead of copying them. */
  hashRange(task: HashTask, transferList: Transferable[] = []): Promise<Uint8Array> {
    if (this.#dead) return Promise.reject(this.#dead);
    return new Promise<Uint8Array>((resolve, reject) => {
      this.#pending.add(reject);
      this.#setBusy(true);
      const settle = () => {
        this.#liveness.heard();
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
    this.#liveness.watch(busy && !this.#dead);
  }
}
