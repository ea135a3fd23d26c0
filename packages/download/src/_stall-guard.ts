/**
 * One request's abort: the download's signal, or no byte for `stallTimeout` milliseconds. Every
 * wait of a request (the response, each read) races the guard, so a source that stops sending,
 * or a `fetch` that ignores its signal, costs at most the timeout.
 * @module
 */
import { SourceFault } from './_sources.js';

export class StallGuard {
  readonly controller: AbortController = new AbortController();
  readonly #timeout: number;
  readonly #outer: AbortSignal | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #reject: ((err: unknown) => void) | undefined;
  readonly #stopped: Promise<never>;
  readonly #onOuterAbort = () => this.#stop(this.#outer!.reason);
  /** When bytes last arrived (Date.now()). */
  #last = 0;
  readonly #check = () => {
    const idle = Date.now() - this.#last;
    this.#timer =
      idle >= this.#timeout
        ? (this.#stop(new SourceFault(`sent nothing for ${this.#timeout} ms`, false)), undefined)
        : setTimeout(this.#check, this.#timeout - idle);
  };

  constructor(stallTimeout: number, outer: AbortSignal | undefined) {
    this.#timeout = stallTimeout;
    this.#outer = outer;
    this.#stopped = new Promise<never>((_, reject) => {
      this.#reject = reject;
    });
    this.#stopped.catch(() => {});
    if (outer?.aborted) this.#stop(outer.reason);
    else outer?.addEventListener('abort', this.#onOuterAbort, { once: true });
    this.alive();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /**
   * Bytes arrived: the timeout starts again. Called for every network chunk, so it only notes
   * the time; the one timer, when it fires early, sets itself for the rest.
   */
  alive(): void {
    this.#last = Date.now();
    this.#timer ??= setTimeout(this.#check, this.#timeout);
  }

  /** Stops the timer while the download, not the source, is busy (a slow store); `alive` restarts it. */
  pause(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** `promise`, or the abort or stall, whichever comes first. */
  race<T>(promise: Promise<T>): Promise<T> {
    promise.catch(() => {});
    return Promise.race([promise, this.#stopped]);
  }

  /** Ends the guard (the request is over). */
  done(): void {
    this.pause();
    this.#outer?.removeEventListener('abort', this.#onOuterAbort);
  }

  #stop(reason: unknown): void {
    this.pause();
    this.#reject?.(reason);
    this.controller.abort(reason);
  }
}
