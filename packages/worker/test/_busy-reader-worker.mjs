// The package's worker (from source) serving files through a reader whose every piece keeps the
// thread busy for `workerData.pieceMs` and resolves without the event loop turning, as bytes in
// memory and Node's Blob reads do: a task of many such pieces is long, and busy throughout.
import { register } from 'tsx/esm/api';
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

register();
const { serveWorker } = await import('../src/_serve-worker.ts');
const { default: nodeEndpoint } = await import('comlink/dist/esm/node-adapter.mjs');
const blocker = new Int32Array(new SharedArrayBuffer(4));
serveWorker(nodeEndpoint(parentPort), async (file) => {
  const bytes = readFileSync(file.path);
  return {
    pieceBytes: workerData.pieceBytes,
    async read(start, end) {
      Atomics.wait(blocker, 0, 0, workerData.pieceMs);
      return bytes.subarray(start, end);
    },
    verify: async () => undefined,
    close: async () => undefined,
  };
});
parentPort.postMessage('loaded'); // see loadedWorker in _helpers.ts
