// One worker as its caller sees it: a comlink proxy, the calls waiting on it, and the ways it can
// die. A worker that dies never answers its pending calls, so every way of noticing a death (what
// the platform reports, a liveness probe that goes unanswered, no first answer in time) ends them
// all instead of leaving them to hang, and every later call fails at once the same way. What a
// call throws in the worker comes back as the class it was thrown as (_errors.ts). The pool runs
// its workers on it, and the upload package its hashing worker.
import { wrap, type Remote } from 'comlink';
import { reviveError, WorkerDiedError, type KnownErrors } from './_errors.js';
import { LivenessProbe } from './_liveness.js';
import type { WorkerPort } from './_platform.js';

/** What every worker served through a handle answers at once, whenever its event loop is free. */
export type Pingable = { ping(): unknown };

export type WorkerHandleOpts<W> = {
  /** Adapts the worker to a WorkerPort that reports its deaths (the platform's, or webWorkerPort). */
  readonly adapt: (worker: W, onDeath: (reason: WorkerDiedError) => void) => WorkerPort;
  /**
   * How long a worker with calls pending may stay silent before it is probed, and how long a
   * probe may go unanswered before the worker counts as dead (see _liveness.ts).
   */
  readonly livenessMs: number;
  /** What messages call the worker (default 'the worker'). */
  readonly name?: string;
  /** The calling package's error classes that calls may throw (see KnownErrors). */
  readonly knownErrors?: KnownErrors;
  /**
   * A worker that has answered nothing this long after it was handed over never started (its
   * script did not load, or is something else): it is stopped, and `hint` says what to check.
   * Unset, a worker that never starts is found by the liveness probe of its first call.
   */
  readonly start?: { readonly ms: number; readonly hint: string };
  /** Told once when the worker dies (not when it is terminated). */
  readonly onDeath?: (reason: WorkerDiedError) => void;
};

export class WorkerHandle<Api extends Pingable, W = unknown> {
  readonly #port: WorkerPort;
  readonly #remote: Remote<Api>;
  readonly #opts: WorkerHandleOpts<W>;
  readonly #name: string;
  readonly #pending = new Set<(e: unknown) => void>();
  readonly #liveness: LivenessProbe;
  #startTimer: ReturnType<typeof setTimeout> | undefined;
  #stopped: Error | undefined;

  constructor(worker: W, opts: WorkerHandleOpts<W>) {
    this.#opts = opts;
    this.#name = opts.name ?? 'the worker';
    this.#port = opts.adapt(worker, (reason) => this.#die(reason));
    this.#remote = wrap<Api>(this.#port.endpoint);
    this.#liveness = new LivenessProbe(
      opts.livenessMs,
      () => this.#remote.ping(),
      (silentMs) => this.#die(new WorkerDiedError(`${this.#name} did not answer for ${silentMs} ms`)),
    );
    const { start } = opts;
    if (start !== undefined) {
      this.#startTimer = setTimeout(
        () =>
          this.#die(
            new WorkerDiedError(
              `${this.#name} did not answer within ${start.ms} ms: its script did not start (${start.hint})`,
            ),
          ),
        start.ms,
      );
    }
    this.#setBusy(false);
  }

  /** Why the worker stopped (died or was terminated), once it has. */
  get stopped(): Error | undefined {
    return this.#stopped;
  }

  /**
   * Makes one call on the worker's proxy (`run` may wrap its arguments in comlink's `transfer`).
   * Settles with the worker's answer, the error the call threw there (revived), or why the worker
   * stopped.
   */
  call<T>(run: (remote: Remote<Api>) => Promise<T>): Promise<T> {
    if (this.#stopped) return Promise.reject(this.#stopped);
    return new Promise<T>((resolve, reject) => {
      this.#pending.add(reject);
      this.#setBusy(true);
      const settle = () => {
        this.#heard();
        this.#pending.delete(reject);
        if (this.#pending.size === 0) this.#setBusy(false);
      };
      let answer: Promise<T>;
      try {
        answer = run(this.#remote);
      } catch (e) {
        answer = Promise.reject(e);
      }
      answer.then(
        (value) => {
          settle();
          resolve(value);
        },
        (e: unknown) => {
          settle();
          reject(reviveError(e, this.#opts.knownErrors));
        },
      );
    });
  }

  /** Stops the worker; pending and later calls reject with `reason`. */
  terminate(reason: Error = new WorkerDiedError(`${this.#name} was terminated`)): void {
    this.#stop(reason);
  }

  #heard(): void {
    this.#liveness.heard();
    clearTimeout(this.#startTimer);
  }

  #die(reason: WorkerDiedError): void {
    if (this.#stopped) return;
    this.#stop(reason);
    this.#opts.onDeath?.(reason);
  }

  #stop(reason: Error): void {
    if (this.#stopped) return;
    this.#stopped = reason;
    clearTimeout(this.#startTimer);
    this.#setBusy(false);
    // Terminating an already dead worker is harmless; a live one must not keep working for nobody.
    void Promise.resolve()
      .then(() => this.#port.terminate())
      .catch(() => undefined);
    const rejects = [...this.#pending];
    this.#pending.clear();
    for (const reject of rejects) reject(reason);
  }

  #setBusy(busy: boolean): void {
    this.#port.setBusy(busy);
    this.#liveness.watch(busy && !this.#stopped);
  }
}
