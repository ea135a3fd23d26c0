// The read ceiling for the benchmark page's pool rows: workers that only read a Blob, as the
// pool's workers read it (its 16 MiB task ranges, two ranges in flight per worker), so each pool
// row is also a ratio to the read-only rate, which it cannot beat: the pool reads the same bytes
// and hashes them. bench/src/browser-run.ts times them beside the pools.
import type { BlobReaders } from '../../bench/src/browser-run.ts';
import ReadWorker from './read-ceiling-worker.ts?worker';

export const READ_WORKERS = 2;
/** The pool's subtree size for large inputs, so the read-only workers read the same ranges. */
const TASK_BYTES = 16 * 1024 * 1024;

/** Reads all of `blob` on `workers`, two ranges in flight each. */
async function readAll(workers: Worker[], blob: Blob): Promise<void> {
  let next = 0;
  let id = 0;
  let bytes = 0;
  const lane = (w: Worker) =>
    new Promise<void>((resolve, reject) => {
      let pending = 0;
      const send = () => {
        if (next >= blob.size) return;
        const start = next;
        next += TASK_BYTES;
        pending++;
        w.postMessage({ id: ++id, blob, start, end: Math.min(blob.size, start + TASK_BYTES) });
      };
      w.onmessage = (e: MessageEvent<{ bytes?: number; error?: { name: string; message: string } }>) => {
        if (e.data.error !== undefined) return reject(new DOMException(e.data.error.message, e.data.error.name));
        pending--;
        bytes += e.data.bytes!;
        send();
        if (pending === 0) resolve();
      };
      w.onerror = (e) => reject(new Error(`a read-only worker failed: ${e.message}`));
      send();
      send();
      if (pending === 0) resolve();
    });
  await Promise.all(workers.map(lane));
  if (bytes !== blob.size) throw new Error(`the read-only workers read ${bytes} of ${blob.size} bytes`);
}

/** Starts the read-only workers, resolving once each serves. */
export async function startReadOnlyWorkers(): Promise<BlobReaders> {
  const workers = Array.from({ length: READ_WORKERS }, () => new ReadWorker());
  try {
    await Promise.all(
      workers.map(
        (w) =>
          new Promise<void>((resolve, reject) => {
            w.onmessage = () => resolve();
            w.onerror = (e) => reject(new Error(`the read-only worker did not start: ${e.message}`));
          }),
      ),
    );
  } catch (err) {
    for (const w of workers) w.terminate();
    throw err;
  }
  return {
    label: `read only, ${READ_WORKERS} workers (the ceiling)`,
    readAll: (blob) => readAll(workers, blob),
    terminate: () => workers.forEach((w) => w.terminate()),
  };
}
