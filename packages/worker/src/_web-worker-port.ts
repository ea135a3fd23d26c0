// A Web Worker (or anything with its events: the browser's DefaultWorker, a Deno or Bun Worker,
// a MessagePort) as a WorkerPort. The worker is comlink's endpoint as it is.
import type { Endpoint } from 'comlink';
import { WorkerDiedError, WorkerStartError } from './_errors.js';
import type { WorkerPort } from './_platform.js';

/** A Web Worker, a MessagePort, or any comlink endpoint: what webWorkerPort adapts. */
export type WebWorkerLike = Endpoint & { terminate?: () => void; close?: () => void };

/** `name` is what messages call the worker. */
export function webWorkerPort(
  worker: WebWorkerLike,
  onDeath: (reason: WorkerDiedError) => void,
  name = 'the worker',
): WorkerPort {
  // An 'error' event is an uncaught error in the worker (comlink catches the ones from calls),
  // e.g. its script failed to load; 'messageerror' means an answer could not be read.
  worker.addEventListener('error', (e: Event) => {
    e.preventDefault?.();
    const { error, message } = e as ErrorEvent;
    onDeath(
      error instanceof WorkerStartError ? error : new WorkerDiedError(`${name} failed: ${message || 'error event'}`),
    );
  });
  worker.addEventListener('messageerror', () =>
    onDeath(new WorkerDiedError(`a message from ${name} could not be deserialized`)),
  );
  return {
    endpoint: worker,
    // A Web Worker never keeps a page or process alive on its own account.
    setBusy: () => undefined,
    // A Worker terminates; a MessagePort closes.
    terminate: () => {
      worker.terminate?.();
      worker.close?.();
    },
  };
}

/** Whether `worker` has the events a Web Worker has. */
export function hasWorkerEvents(worker: unknown): worker is Worker {
  return typeof (worker as Worker).addEventListener === 'function';
}
