// A task must let its worker's event loop run now and then: the pool's liveness probe is a
// message (_liveness.ts), taken only when the loop turns. A read that waits on the engine or the
// disk lets it turn, but not every read waits: bytes already in memory do not, nor do Node's Blob
// reads (Node 20: 256 MiB read through a Blob stream or its slices with no turn of the loop), so a
// long task of them would leave a healthy worker silent until it ends.

/** The longest a task holds the event loop between turns. */
export const TURN_MS = 20;

/** Resolves once the event loop has taken what was waiting (a probe's message included). */
export function nextTurn(): Promise<void> {
  if (typeof setImmediate === 'function') return new Promise((resolve) => setImmediate(resolve));
  // A message task runs after the messages already queued; setTimeout(0) would cost 4 ms once
  // nested (HTML's timer clamping).
  return new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => {
      port1.close();
      resolve();
    };
    port2.postMessage(undefined);
  });
}

/** For a loop of steps that may never wait: a turn of the event loop at least every TURN_MS. */
export class EventLoopTurns {
  #due = Date.now() + TURN_MS;

  /** Whether the loop has run for TURN_MS since its last turn (then `await nextTurn()`). */
  get due(): boolean {
    return Date.now() >= this.#due;
  }

  async take(): Promise<void> {
    await nextTurn();
    this.#due = Date.now() + TURN_MS;
  }
}
