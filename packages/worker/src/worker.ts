/**
 * The worker entry (`@blake3-web/worker/worker`): start it as a module worker in browsers or as a
 * worker_threads Worker in Node, and hand it to `createPool({ createWorker })`. Importing this
 * module exposes the worker's API on its parent port: that is its only effect.
 * @module
 */
import { expose, transferHandlers, type TransferHandler } from 'comlink';
import { openFile, parentEndpoint } from '#worker-platform';
import { toWireError } from './_errors.js';
import { hashRange } from './_hash-range.js';
import type { HashTask, WorkerApi } from './protocol.js';

// comlink keeps only name, message and stack of a thrown Error; this keeps Node's system error
// fields and the class too, in the same wire shape comlink's own deserializer understands.
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

expose(api, parentEndpoint());
