// What the adapter tests run it on in Node: the hasher served on MessagePorts of this thread
// (the worker's protocol without a worker), and a checkpoint store in memory that clones what
// it keeps, as IndexedDB does.
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
