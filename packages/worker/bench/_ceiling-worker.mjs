// A read-ceiling worker (bench only): takes task numbers from a shared counter and reads (and,
// with `hash`, hashes) each task's range of the file in pieces: what the pool could reach if
// scheduling and messaging cost nothing. The same ranges as the pool's tasks.
import { closeSync, openSync, readSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

const { file, size, task, piece, hash, reader, counter } = workerData;
const next = new Int32Array(counter);
const { subtreeHasher } = hash ? await import('@blake3-web/core/hazmat') : {};
// The core compiles its WASM backend asynchronously; until then it hashes in portable JS.
if (hash) await (await import('@blake3-web/core')).ready();
const { open } = reader === 'async' ? await import('node:fs/promises') : {};
const buf = new Uint8Array(piece);
const fd = reader === 'async' ? await open(file, 'r') : openSync(file, 'r');
let checksum = 0;
for (;;) {
  const i = Atomics.add(next, 0, 1);
  const start = i * task;
  if (start >= size) break;
  const end = Math.min(size, start + task);
  const h = hash ? subtreeHasher(start) : undefined;
  for (let a = start; a < end; a += piece) {
    const len = Math.min(piece, end - a);
    const n = reader === 'async' ? (await fd.read(buf, 0, len, a)).bytesRead : readSync(fd, buf, 0, len, a);
    if (n !== len) throw new Error(`short read at ${a}`);
    if (h) h.update(buf.subarray(0, len));
    else checksum ^= buf[len - 1];
  }
  if (h) checksum ^= h.finalizeNonRoot()[0];
}
if (reader === 'async') await fd.close();
else closeSync(fd);
parentPort.postMessage(checksum);
