// The worker side: exposes the task API on an endpoint. worker.ts and worker-node.ts call this
// with their platform's endpoint and file reader.
import { expose, transferHandlers, type Endpoint, type TransferHandler } from 'comlink';
import { toWireError } from './_errors.js';
import { hashRange } from './_hash-range.js';
import type { OpenFile } from './_range-readers.js';
import type { HashTask, WorkerApi } from './protocol.js';

export function serveWorker(endpoint: Endpoint, openFile: OpenFile): void {
  // comlink keeps only name, message and stack of a thrown Error; this keeps Node's system error
  // fields and the class too, in the same wire shape comlink's own deserializer understands.
  // This worker's comlink is its own: replacing the handler affects nothing else.
  const base = transferHandlers.get('throw') as TransferHandler<{ value: unknown }, unknown>;
  transferHandlers.set('throw', {
    canHandle: base.canHandle,
    serialize(thrown) {
      const { value } = thrown;
      const isError = value instanceof Error || (typeof DOMException !== 'undefined' && value instanceof DOMException);
      return isError ? [{ isError: true, value: toWireError(value as Error) }, []] : base.serialize(thrown);
    },
    deserialize: base.deserialize,
  } satisfies TransferHandler<{ value: unknown }, unknown>);

  const api: WorkerApi = {
    hashRange: (task: HashTask) => hashRange(task, openFile),
    ping: () => 'pong',
  };
  expose(api, endpoint);
}
