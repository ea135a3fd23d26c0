// The package's worker (from source) on a disk that takes `workerData.delayMs` for every read:
// a synchronous read blocks the thread that long, a read through the thread pool resolves that
// much later, as a slow disk or a network file system would make them.
import { register } from 'tsx/esm/api';
import fs from 'node:fs';
import { open } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';

const { delayMs } = workerData;
const readSync = fs.readSync;
const blocker = new Int32Array(new SharedArrayBuffer(4));
fs.readSync = (...args) => {
  Atomics.wait(blocker, 0, 0, delayMs);
  return readSync(...args);
};
syncBuiltinESMExports();
const probe = await open(new URL(import.meta.url), 'r');
const fileHandle = Object.getPrototypeOf(probe);
await probe.close();
const read = fileHandle.read;
fileHandle.read = function (...args) {
  return new Promise((resolve) => setTimeout(resolve, delayMs)).then(() => read.apply(this, args));
};

register();
await import('../src/worker-node.ts');
parentPort.postMessage('loaded'); // see loadedWorker in _helpers.ts
