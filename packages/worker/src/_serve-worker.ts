// The worker side: exposes the task API on an endpoint. worker.ts and worker-node.ts call this
// with their platform's endpoint and file reader.
import { expose, type Endpoint } from 'comlink';
import { sendErrorsWhole } from './_errors.js';
import { hashRange } from './_hash-range.js';
import type { OpenFile } from './_range-readers.js';
import type { HashTask, WorkerApi } from './protocol.js';

export function serveWorker(endpoint: Endpoint, openFile: OpenFile): void {
  sendErrorsWhole();
  const api: WorkerApi = {
    hashRange: (task: HashTask) => hashRange(task, openFile),
    ping: () => 'pong',
  };
  expose(api, endpoint);
}
