/// <reference path="../../../e2e/fixtures/page-globals.d.ts" />
/// <reference path="../../../e2e/fixtures/worker-globals.d.ts" />
// The read ceiling against the pool, in one run: workers that only read the pool's task ranges
// (16 MiB, handed out two per worker as the pool does) with each candidate reader, then the
// pool hashing the same input, rounds interleaved, medians. A 1 GiB File from disk
// (setInputFiles: Chromium and Firefox) and an in-memory Blob (all three engines), pools of 1-4,
// and the page's long tasks / frame gaps during a hash on the default pool.
//   CEILING_MIB=1024 BLOB_MIB=96 ROUNDS=3 node_modules/.bin/playwright test -c packages/worker/bench/browsers.config.ts read-ceiling
import { blake3, bytesToHex } from '@blake3-web/core';
import { createReadStream, existsSync, statSync, writeFileSync } from 'node:fs';

import { fixtureUrl } from '../../../e2e/fixtures/engine-page.ts';
import { expect, skipWebKit, test } from '../../../e2e/fixtures/test.ts';

const MiB = 1024 * 1024;
const fileMib = Number(process.env.CEILING_MIB ?? 1024);
const blobMib = Number(process.env.BLOB_MIB ?? 96);
const rounds = Number(process.env.ROUNDS ?? 3);
const pools = (process.env.POOLS ?? '1,2,3,4').split(',').map(Number);
const path = `/tmp/blake3-web-${fileMib}m.bin`;

type Args = { source: 'file' | 'blob'; mib: number; rounds: number; pools: number[] };
type Row = { label: string; workers: number; mbps: number | null; error?: string; hex?: string };

/** Runs in the page: self-contained. */
async function measure({ source, mib, rounds, pools }: Args) {
  const { core, worker } = globalThis.blake3WebWorker!;
  const M = 1024 * 1024;
  let blob: Blob;
  if (source === 'file') blob = (document.getElementById('file') as HTMLInputElement).files![0];
  else {
    const piece = new Uint8Array(16 * M);
    for (let i = 0; i < piece.length; i++) piece[i] = (i * 31 + (i >>> 11)) % 251;
    blob = new Blob(Array.from({ length: Math.ceil(mib / 16) }, () => piece)).slice(0, mib * M);
  }
  // A read-only worker: reads [a, b) of the Blob with one reader and answers the byte count.
  const workerSource = `
    const PIECE = 8 * 1024 * 1024;
    const readers = {
      arrayBuffer: async (blob, a, b) => {
        let n = 0;
        for (let p = a; p < b; p += PIECE) n += (await blob.slice(p, Math.min(b, p + PIECE)).arrayBuffer()).byteLength;
        return n;
      },
      stream: async (blob, a, b) => {
        const reader = blob.slice(a, b).stream().getReader();
        let n = 0;
        for (;;) { const { done, value } = await reader.read(); if (done) return n; n += value.length; }
      },
      byob: async (blob, a, b) => {
        const reader = blob.slice(a, b).stream().getReader({ mode: 'byob' });
        let buf = new ArrayBuffer(1024 * 1024);
        let n = 0;
        for (;;) {
          const { done, value } = await reader.read(new Uint8Array(buf));
          if (done) return n;
          n += value.length;
          buf = value.buffer;
        }
      },
      sync: async (blob, a, b) => {
        const fr = new FileReaderSync();
        let n = 0;
        for (let p = a; p < b; p += PIECE) n += fr.readAsArrayBuffer(blob.slice(p, Math.min(b, p + PIECE))).byteLength;
        return n;
      },
    };
    onmessage = async (e) => {
      const { id, blob, method, a, b } = e.data;
      try { postMessage({ id, n: await readers[method](blob, a, b) }); }
      catch (err) { postMessage({ id, error: String(err && (err.name + ': ' + err.message)) }); }
    };`;
  const url = URL.createObjectURL(new Blob([workerSource], { type: 'text/javascript' }));
  const TASK = 16 * M;
  const ceiling = async (method: string, n: number): Promise<number> => {
    const workers = Array.from({ length: n }, () => new Worker(url));
    try {
      let next = 0;
      let id = 0;
      let bytes = 0;
      const lane = (w: Worker) =>
        new Promise<void>((resolve, reject) => {
          const pending = new Set<number>();
          const start = () => {
            if (next >= blob.size) return;
            const a = next;
            next += TASK;
            pending.add(++id);
            w.postMessage({ id, blob, method, a, b: Math.min(blob.size, a + TASK) });
          };
          w.onmessage = (e) => {
            if (e.data.error) return reject(new Error(e.data.error));
            pending.delete(e.data.id);
            bytes += e.data.n;
            start();
            if (pending.size === 0) resolve();
          };
          start();
          start();
          if (pending.size === 0) resolve();
        });
      const t0 = performance.now();
      await Promise.all(workers.map(lane));
      const ms = performance.now() - t0;
      if (bytes !== blob.size) throw new Error(`read ${bytes} of ${blob.size} bytes`);
      return blob.size / 1e6 / (ms / 1e3);
    } finally {
      for (const w of workers) w.terminate();
    }
  };
  const methods = ['arrayBuffer', 'stream', 'byob', 'sync'];
  const samples = new Map<string, { workers: number; values: number[]; error?: string; hex?: string }>();
  const record = (label: string, workers: number, value: number | Error, hex?: string) => {
    const s = samples.get(label) ?? { workers, values: [] };
    if (value instanceof Error) s.error = value.message;
    else s.values.push(value);
    if (hex !== undefined) s.hex = hex;
    samples.set(label, s);
  };
  const poolsBySize = pools.map((n) => [n, worker.createPool({ size: n })] as const);
  for (const [, pool] of poolsBySize) await pool.hashBlob(new Blob([new Uint8Array(4 * M)]));
  for (let round = 0; round < rounds; round++) {
    for (const n of pools) {
      for (const method of methods) {
        if (samples.get(`read ${method}`)?.error !== undefined) continue;
        try {
          record(`read ${method}`, n, await ceiling(method, n));
        } catch (e) {
          record(`read ${method}`, n, e as Error);
        }
      }
      const pool = poolsBySize.find(([size]) => size === n)![1];
      const t0 = performance.now();
      const hex = core.bytesToHex(await pool.hashBlob(blob));
      record(`pool of ${n}`, n, blob.size / 1e6 / ((performance.now() - t0) / 1e3), hex);
    }
  }
  for (const [, pool] of poolsBySize) pool.terminate();
  // The page during a hash on the default pool: long tasks where the engine reports them, and
  // the longest gap between animation frames and between zero-delay timers everywhere.
  const longTasks: number[] = [];
  let observer: PerformanceObserver | undefined;
  try {
    observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) longTasks.push(e.duration);
    });
    observer.observe({ type: 'longtask', buffered: false });
  } catch {
    observer = undefined;
  }
  let hashing = true;
  let maxFrameGap = 0;
  let maxTimerGap = 0;
  let lastFrame = performance.now();
  let lastTimer = performance.now();
  const frame = (t: number) => {
    maxFrameGap = Math.max(maxFrameGap, t - lastFrame);
    lastFrame = t;
    if (hashing) requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  const tick = () => {
    const now = performance.now();
    maxTimerGap = Math.max(maxTimerGap, now - lastTimer);
    lastTimer = now;
    if (hashing) setTimeout(tick, 0);
  };
  setTimeout(tick, 0);
  const t0 = performance.now();
  const hex = core.bytesToHex(await worker.hashFile(blob));
  const defaultMs = performance.now() - t0;
  hashing = false;
  observer?.disconnect();
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const rows: Row[] = [];
  for (const [label, s] of samples) {
    rows.push({
      label,
      workers: s.workers,
      mbps: s.values.length ? Math.round(median(s.values)) : null,
      error: s.error,
      hex: s.hex,
    });
  }
  return {
    rows,
    size: blob.size,
    hardwareConcurrency: navigator.hardwareConcurrency,
    page: {
      defaultPoolMbps: Math.round(blob.size / 1e6 / (defaultMs / 1e3)),
      longTasks: observer === undefined ? null : longTasks.length,
      longestTaskMs: longTasks.length ? Math.round(Math.max(...longTasks)) : 0,
      maxFrameGapMs: Math.round(maxFrameGap),
      maxTimerGapMs: Math.round(maxTimerGap),
      hex,
    },
  };
}

function expectedHex(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hasher = blake3.create();
    createReadStream(file, { highWaterMark: 16 * MiB })
      .on('data', (chunk) => hasher.update(chunk as Uint8Array))
      .on('end', () => resolve(bytesToHex(hasher.digest())))
      .on('error', reject);
  });
}

test.describe('read ceiling', () => {
  test('in-memory Blob', async ({ enginePage }) => {
    test.setTimeout(600_000);
    await enginePage.goto('/e2e/pages/worker.html');
    await enginePage.waitForFunction(() => globalThis.blake3WebWorker !== undefined);
    const results = [];
    for (const n of pools)
      results.push(await enginePage.evaluate(measure, { source: 'blob' as const, mib: blobMib, rounds, pools: [n] }));
    report(enginePage.engine, 'blob', results);
    for (const r of results) for (const row of r.rows) if (row.hex != null) expect(row.hex, row.label).toBe(r.page.hex);
  });
});

test.describe('read ceiling, File', () => {
  skipWebKit('setInputFiles');

  test('File from disk', async ({ page, browserName }) => {
    test.setTimeout(600_000);
    if (!existsSync(path) || statSync(path).size !== fileMib * MiB) {
      const piece = new Uint8Array(fileMib * MiB);
      for (let i = 0; i < piece.length; i++) piece[i] = (i * 31 + (i >>> 11)) % 251;
      writeFileSync(path, piece);
    }
    const expected = await expectedHex(path);
    await page.goto(fixtureUrl('/e2e/pages/worker.html'));
    await page.waitForFunction(() => globalThis.blake3WebWorker !== undefined);
    await page.setInputFiles('#file', path);
    const results = [];
    for (const n of pools)
      results.push(await page.evaluate(measure, { source: 'file' as const, mib: fileMib, rounds, pools: [n] }));
    report(browserName, 'file', results);
    for (const r of results) {
      for (const row of r.rows) if (row.hex != null) expect(row.hex, row.label).toBe(expected);
      expect(r.page.hex).toBe(expected);
    }
  });
});

function report(engine: string, source: string, results: Awaited<ReturnType<typeof measure>>[]): void {
  for (const r of results) {
    const rows = r.rows.map(({ hex: _, ...row }) => row);
    console.log(
      JSON.stringify({
        engine,
        source,
        size: r.size,
        hc: r.hardwareConcurrency,
        rows,
        page: { ...r.page, hex: undefined },
      }),
    );
  }
}
