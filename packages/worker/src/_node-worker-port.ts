// A worker_threads Worker as a WorkerPort, through comlink's node adapter.
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { WorkerDiedError } from './_errors.js';
import type { NodeWorkerLike, WorkerPort } from './_platform.js';

export function nodeWorkerPort(worker: NodeWorkerLike, onDeath: (reason: WorkerDiedError) => void): WorkerPort {
  const onExit = (code: number) => onDeath(new WorkerDiedError(`the worker exited with code ${code}`));
  const onError = (e: Error) =>
    onDeath(new WorkerDiedError(`the worker failed: ${e?.message ?? String(e)}`, { cause: e }));
  // The listeners stay for the worker's whole life: a worker terminated while its script was
  // still loading can emit 'error' afterwards, and an 'error' nobody listens to would crash the
  // process. After the first death they do nothing.
  worker.on('exit', onExit);
  worker.on('error', onError);
  return {
    endpoint: nodeEndpoint(worker),
    setBusy(busy) {
      if (busy) worker.ref?.();
      else worker.unref?.();
    },
    terminate: () => worker.terminate(),
  };
}
