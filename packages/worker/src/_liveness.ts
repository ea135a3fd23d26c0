// Noticing a worker that stopped answering. Browsers report no event when a worker is killed from
// outside, and a worker stuck in a loop reports nothing either: while calls wait on a worker, a
// silence of `livenessMs` sends it a probe, answered as soon as its event loop is free, and a probe
// unanswered for `livenessMs` more means the worker is dead.

export class LivenessProbe {
  readonly #livenessMs: number;
  readonly #ping: () => Promise<unknown>;
  readonly #onSilent: (silentMs: number) => void;
  #lastHeard = Date.now();
  #probeSentAt: number | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;

  /** `ping` asks the worker for an answer; `onSilent` is called once a probe went unanswered. */
  constructor(livenessMs: number, ping: () => Promise<unknown>, onSilent: (silentMs: number) => void) {
    this.#livenessMs = livenessMs;
    this.#ping = ping;
    this.#onSilent = onSilent;
  }

  /** The worker answered something. */
  heard(): void {
    this.#lastHeard = Date.now();
  }

  /** Probes only while calls wait on the worker: an idle worker has nothing to answer. */
  watch(waiting: boolean): void {
    if (waiting && this.#timer === undefined) {
      this.#lastHeard = Date.now();
      this.#timer = setInterval(() => this.#check(), Math.max(1, this.#livenessMs / 2));
      (this.#timer as { unref?: () => void }).unref?.();
    } else if (!waiting && this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
      this.#probeSentAt = undefined;
    }
  }

  #check(): void {
    const now = Date.now();
    if (this.#probeSentAt !== undefined) {
      if (now - this.#probeSentAt >= this.#livenessMs) {
        this.watch(false);
        this.#onSilent(now - this.#lastHeard);
      }
      return;
    }
    if (now - this.#lastHeard < this.#livenessMs) return;
    const sentAt = (this.#probeSentAt = now);
    this.#ping().then(
      () => {
        if (this.#probeSentAt === sentAt) this.#probeSentAt = undefined;
        this.#lastHeard = Date.now();
      },
      () => undefined,
    );
  }
}
