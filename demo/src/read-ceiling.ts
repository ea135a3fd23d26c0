// The pool beside its read ceiling, for the benchmark page: workers that only read a Blob (the
// pool's reader, its 16 MiB task ranges, two ranges in flight per worker) and pools of 1-4
// hashing the same Blob, rounds interleaved in shuffled order, medians. Each pool row is also
// a ratio to the read-only rate, which it cannot beat: the pool reads the same bytes and hashes them.
import { blake3, bytesToHex } from '@blake3-web/core';

import { roundOrder } from '../../bench/src/run-rounds.ts';
import { median } from '../../bench/src/stats.ts';
import type { TaskRow } from '../../bench/src/task-row.ts';
import { sizedPool } from './pool.ts';
import ReadWorker from './read-ceiling-worker.ts?worker';

export const READ_WORKERS = 2;
export const POOL_SIZES = [1, 2, 3, 4];
/** The pool's subtree size for large inputs, so the read-only workers read the same ranges. */
const TASK_BYTES = 16 * 1024 * 1024;

export interface ReadCeilingReport {
  readonly blobBytes: number;
  readonly rounds: number;
  /** The read-only row first, then the pools. */
  readonly rows: TaskRow[];
}

/** Starts `n` read-only workers, resolving once each serves. */
async function startReaders(n: number): Promise<Worker[]> {
  const workers = Array.from({ length: n }, () => new ReadWorker());
  await Promise.all(
    workers.map(
      (w) =>
        new Promise<void>((resolve, reject) => {
          w.onmessage = () => resolve();
          w.onerror = (e) => reject(new Error(`the read-only worker did not start: ${e.message}`));
        }),
    ),
  );
  return workers;
}

/** Reads all of `blob` on `workers`, two ranges in flight each; ms. */
async function readAll(workers: Worker[], blob: Blob): Promise<number> {
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
      w.onmessage = (e: MessageEvent<{ bytes?: number; error?: string }>) => {
        if (e.data.error !== undefined) return reject(new Error(e.data.error));
        pending--;
        bytes += e.data.bytes!;
        send();
        if (pending === 0) resolve();
      };
      send();
      send();
      if (pending === 0) resolve();
    });
  const t0 = performance.now();
  await Promise.all(workers.map(lane));
  const ms = performance.now() - t0;
  if (bytes !== blob.size) throw new Error(`the read-only workers read ${bytes} of ${blob.size} bytes`);
  return ms;
}

export async function measureReadCeiling(
  bytes: number,
  rounds: number,
  log: (line: string) => void,
): Promise<ReadCeilingReport> {
  let data: Uint8Array | undefined = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i += 4096) data[i] = (i >>> 12) % 251;
  const expected = bytesToHex(blake3(data));
  const blob = new Blob([data as Uint8Array<ArrayBuffer>]);
  data = undefined; // The Blob holds its own copy.
  const ids = ['read', ...POOL_SIZES.map((s) => `pool-${s}`)];
  const rows: TaskRow[] = [
    { id: 'read', label: `read only, ${READ_WORKERS} workers (the ceiling)`, samples: [], median: 0 },
    ...POOL_SIZES.map((s) => ({
      id: `pool-${s}`,
      label: `pool of ${s} worker${s > 1 ? 's' : ''}`,
      samples: [],
      median: 0,
    })),
  ];
  const pools = new Map(POOL_SIZES.map((s) => [`pool-${s}`, sizedPool(s)]));
  const readers = await startReaders(READ_WORKERS);
  const mbps = (ms: number) => bytes / 1e3 / ms;
  try {
    // Round -1 starts the pools' workers and checks every answer.
    for (let r = -1; r < rounds; r++) {
      for (const id of roundOrder(ids, Math.max(r, 0))) {
        let ms: number;
        const pool = pools.get(id);
        if (pool === undefined) ms = await readAll(readers, blob);
        else {
          const t0 = performance.now();
          const got = bytesToHex(await pool.hashBlob(blob));
          ms = performance.now() - t0;
          if (got !== expected) throw new Error(`${id} gave ${got}, expected ${expected}`);
        }
        if (r >= 0) rows[ids.indexOf(id)].samples.push(mbps(ms));
      }
      if (r >= 0) log(`read ceiling round ${r + 1}/${rounds}`);
    }
  } finally {
    for (const p of pools.values()) p.terminate();
    for (const w of readers) w.terminate();
  }
  for (const row of rows) row.median = median(row.samples);
  return { blobBytes: bytes, rounds, rows };
}
