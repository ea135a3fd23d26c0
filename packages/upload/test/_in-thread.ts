// What the adapter tests run it on in Node: the hasher served on MessagePorts of this thread
// (the worker's protocol without a worker), and a checkpoint store in memory that clones what
// it keeps, as IndexedDB does.
import { DefaultHttpStack, type HttpStack } from 'tus-js-client';
import { serveHasher, type CheckpointStore } from '../src/index.ts';

/** `createWorker` for `blake3Tus`, and `closeAll()` for the ports of uploads stopped midway. */
export function inThreadHashers(): { createWorker: () => MessagePort; closeAll: () => void } {
  const ports: MessagePort[] = [];
  return {
    createWorker() {
      const { port1, port2 } = new MessageChannel();
      serveHasher(port2);
      ports.push(port1);
      return port1;
    },
    closeAll: () => ports.splice(0).forEach((port) => port.close()),
  };
}

/** A checkpoint store in memory; `map` shows what it holds. */
export function memoryStore(
  entries: Iterable<[string, unknown]> = [],
): CheckpointStore & { map: Map<string, unknown> } {
  const map = new Map<string, unknown>(entries);
  return {
    map,
    get: async (k) => structuredClone(map.get(k)),
    set: async (k, v) => void map.set(k, structuredClone(v)),
    delete: async (k) => void map.delete(k),
  };
}

/**
 * tus-js-client's Node stack, sending a Blob body as XMLHttpRequest does (the Node stack itself
 * takes bytes and streams only): the upload's slices can then be the File's own, with the
 * hashing worker reading them (`readInWorker`). Its reads of the body are the request's, as a
 * browser's network stack's are, not the adapter's.
 */
export function blobBodyStack(): HttpStack {
  const inner = new DefaultHttpStack({});
  return {
    getName: () => 'blob bodies over the Node stack',
    createRequest(method, url) {
      const req = inner.createRequest(method, url);
      const send = req.send.bind(req);
      req.send = async (body?: unknown) =>
        send(body instanceof Blob ? (new Uint8Array(await body.arrayBuffer()) as never) : (body as never));
      return req;
    },
  };
}
