// A Web Worker (or anything with its events: the browser's DefaultWorker, a Deno or Bun Worker)
// as a WorkerPort. The worker is comlink's endpoint as it is.
import type { Endpoint } from 'comlink';
import { WorkerDiedError, WorkerStartError } from './_errors.js';
import type { WorkerPort } from './_platform.js';

export function webWorkerPort(worker: Worker, onDeath: (reason: WorkerDiedError) => void): WorkerPort {
  // An 'error' event is an uncaught error in the worker (comlink catches the ones from calls),
  // e.g. its script failed to load; 'messageerror' means an answer could not be read.
  worker.addEventListener('error', (e: Event) => {
    e.preventDefault();
    const { error, message } = e as ErrorEvent;
    onDeath(
      error instanceof WorkerStartError ? error : new WorkerDiedError(`the worker failed: ${message || 'error event'}`),
    );
  });
  worker.addEventListener('messageerror', () =>
    onDeath(new WorkerDiedError('a message from the worker could not be deserialized')),
  );
  return {
    endpoint: worker as Endpoint,
    // A Web Worker never keeps a page or process alive on its own account.
    setBusy: () => undefined,
    terminate: () => worker.terminate(),
  };
}

/** Whether `worker` has the events a Web Worker has. */
export function hasWorkerEvents(worker: unknown): worker is Worker {
  return typeof (worker as Worker).addEventListener === 'function';
}
