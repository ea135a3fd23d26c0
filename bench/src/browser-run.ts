// The benchmark as a browser page runs it: the synchronous implementations through runRounds,
// WebCrypto SHA-256 (asynchronous) in its own rounds, the worker pool on one large Blob, and the
// streams against one-shot. No Node APIs; the page hands in what only it can make (workers).
import * as core from '@blake3-web/core';
import { backend, blake3, ready, setBackend } from '@blake3-web/core';
import type * as streamLib from '@blake3-web/stream';
import { sha256 } from '@noble/hashes/sha2.js';

import { kernelBatch } from './batch-kernel.ts';
import { measureBatches } from './batch-measure.ts';
import type { BrowserBenchReport } from './browser-report.ts';
import type { TaskRow } from './task-row.ts';
import type { Candidate, CallStyle, Reference } from './candidate.ts';
import {
  blake3JitCandidate,
  coreCandidates,
  coreReusedHasherCandidate,
  hashWasmCandidate,
  nobleCandidate,
  officialWasmCandidate,
} from './candidates-blake3.ts';
import { megabytesPerSecond } from './measure.ts';
import { roundOrder, runRounds, type Cell } from './run-rounds.ts';
import { progressPlan, type Progress } from './progress.ts';
import { formatSize, paintInput, SIZES, UPDATE_SIZE } from './sizes.ts';
import { median, quantile } from './stats.ts';
import { measureStreams } from './stream-measure.ts';
import type { Verification } from './verify.ts';

export const WEBCRYPTO_ID = 'webcrypto-sha256';

/** The part of @blake3-web/worker's Pool the benchmark uses. */
export interface PoolLike {
  hashBlob(blob: Blob): Promise<Uint8Array>;
  terminate(): void;
}

export interface BrowserRunOptions {
  readonly quick: boolean;
  readonly rounds?: number;
  readonly targetMs?: number;
  readonly sizes?: readonly number[];
  readonly poolBytes?: number;
  readonly streamBytes?: number;
  readonly peers: readonly { name: string; version: string }[];
  readonly createPool: (size: number) => PoolLike;
  readonly stream: typeof streamLib;
  readonly log?: (line: string) => void;
  /** Called with the table so far after each stage, so the page can draw as results arrive. */
  readonly onPartial?: (report: BrowserBenchReport) => void;
  /** Passed on to runRounds: every cell after every round. */
  readonly onRound?: (cells: readonly Cell[]) => void;
  /** The step under way and how much of the run is done, for a progress bar. */
  readonly onProgress?: (progress: Progress) => void;
  /** Pool sizes measured on the large Blob (default 1 and 2: this machine kind has 2 cores). */
  readonly poolSizes?: readonly number[];
  /** Starts workers that only read the pool's Blob: the row every pool row is a ratio of. */
  readonly startReaders?: () => Promise<BlobReaders>;
}

/** Lets the page repaint and take input between samples. */
const macrotask = () => new Promise<void>((r) => setTimeout(r, 0));

/** The smallest non-zero step of performance.now(): about 5-100 µs when cross-origin isolated. */
function timerStepUs(): number {
  let best = Infinity;
  for (let i = 0; i < 50; i++) {
    const a = performance.now();
    let b = a;
    while (b === a) b = performance.now();
    best = Math.min(best, b - a);
  }
  return Math.round(best * 1000 * 10) / 10;
}

function hex(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

/**
 * WebCrypto's digest() returns a promise, so it cannot run in runRounds' synchronous loop: same
 * method here (calibrated calls per sample, an untimed round, shuffled order each round,
 * medians), with one await per call, which is how applications call it.
 */
async function webCryptoCells(
  sizes: readonly number[],
  rounds: number,
  targetMs: number,
  verifications: Verification[],
  onProgress: (fraction: number) => void,
): Promise<Cell[]> {
  const digest = (input: Uint8Array) => crypto.subtle.digest('SHA-256', input as Uint8Array<ArrayBuffer>);
  const time = async (input: Uint8Array, calls: number) => {
    const t0 = performance.now();
    for (let i = 0; i < calls; i++) await digest(input);
    return performance.now() - t0;
  };
  const work: { cell: Cell; input: Uint8Array }[] = [];
  for (const size of sizes) {
    const input = paintInput(size);
    const got = hex(new Uint8Array(await digest(input)));
    const want = hex(sha256(input));
    const ok = got === want;
    verifications.push({
      mode: 'one-shot',
      candidate: WEBCRYPTO_ID,
      size,
      ok,
      ...(ok ? {} : { detail: `digest ${got}, expected ${want}` }),
    });
    if (!ok) continue;
    let calls = 1;
    let ms = await time(input, calls);
    while (ms < targetMs / 4) ms = await time(input, (calls *= 2));
    calls = Math.max(1, Math.round((calls * targetMs) / Math.max(ms, 1e-3)));
    ms = await time(input, calls);
    calls = Math.max(1, Math.round((calls * targetMs) / Math.max(ms, 1e-3)));
    work.push({
      cell: { mode: 'one-shot', candidate: WEBCRYPTO_ID, size, calls, samples: [], median: 0, q1: 0, q3: 0 },
      input,
    });
  }
  for (let r = 0; r < rounds; r++) {
    for (const w of roundOrder(work, r)) {
      const ms = await time(w.input, w.cell.calls);
      w.cell.samples.push(megabytesPerSecond(w.cell.size, w.cell.calls, ms));
    }
    onProgress((r + 1) / rounds);
    await macrotask();
  }
  for (const { cell } of work) {
    cell.median = median(cell.samples);
    cell.q1 = quantile(cell.samples, 0.25);
    cell.q3 = quantile(cell.samples, 0.75);
  }
  return work.map((w) => w.cell);
}

/** Workers that read a Blob's bytes the way the pool's workers do, without hashing them. */
export interface BlobReaders {
  readonly label: string;
  /** Reads every byte of `blob`; fails as the engine's read failed. */
  readAll(blob: Blob): Promise<void>;
  terminate(): void;
}

/** `Name: message`, as the page and the docs show why a row was skipped. */
export function describeError(err: unknown): string {
  return err instanceof Error || err instanceof DOMException ? `${err.name}: ${err.message}` : String(err);
}

/** A pool's digest that differs from blake3() of the same bytes: a wrong answer, not an engine failure. */
class WrongOutput extends Error {}

function newRow(id: string, label: string): TaskRow {
  return { id, label, samples: [], median: Number.NaN };
}

/**
 * Pools of each size hashing one Blob and, when the page hands them in, workers that only read
 * it (the ceiling a pool cannot beat), interleaved in a shuffled order each round, medians. A
 * row whose read fails is skipped from then on with the engine's reason; the others go on.
 *
 * Every round starts its workers afresh (warmed up on a small Blob, untimed) and ends them: each
 * read slices the Blob, and Chromium (156) keeps a slice's bytes until the worker's garbage
 * collector frees its tiny wrapper, which with ten workers reading a 96 MiB Blob came after 47
 * reads, past the blob store's memory: the next read failed with "network error". Workers that
 * live one round give their slices back when they end; a fresh Blob per round failed sooner (14).
 */
export async function poolRows(
  opts: {
    createPool: (size: number) => PoolLike;
    sizes: readonly number[];
    startReaders?: () => Promise<BlobReaders>;
    bytes: number;
    rounds: number;
  },
  onRound: (round: number) => void,
): Promise<TaskRow[]> {
  const { bytes } = opts;
  let data: Uint8Array | undefined = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i += 4096) data[i] = (i >>> 12) % 251;
  const expected = hex(blake3(data));
  const blob = new Blob([data as Uint8Array<ArrayBuffer>]);
  data = undefined; // The Blob holds its own copy; let the array go.
  const warmUp = new Blob([new Uint8Array(1 << 20)]);
  const rows = [
    ...(opts.startReaders ? [newRow('read', 'read only')] : []),
    ...opts.sizes.map((s) => newRow(`pool-${s}`, `pool of ${s} worker${s > 1 ? 's' : ''}`)),
  ];
  const skip = (row: TaskRow, err: unknown) =>
    (row.skipped = err instanceof WrongOutput ? err.message : describeError(err));
  for (let r = 0; r < opts.rounds; r++) {
    const runs = new Map<TaskRow, () => Promise<void>>();
    const stop: (() => void)[] = [];
    try {
      for (const row of rows) {
        if (row.skipped !== undefined) continue;
        try {
          if (row.id === 'read') {
            const readers = await opts.startReaders!();
            stop.push(() => readers.terminate());
            row.label = readers.label;
            runs.set(row, () => readers.readAll(blob));
          } else {
            const pool = opts.createPool(Number(row.id.slice('pool-'.length)));
            stop.push(() => pool.terminate());
            await pool.hashBlob(warmUp);
            runs.set(row, async () => {
              const got = hex(await pool.hashBlob(blob));
              if (got !== expected) throw new WrongOutput(`wrong output: ${got}, expected ${expected}`);
            });
          }
        } catch (err) {
          skip(row, err);
        }
      }
      for (const row of roundOrder([...runs.keys()], r)) {
        const t0 = performance.now();
        try {
          await runs.get(row)!();
        } catch (err) {
          skip(row, err);
          continue;
        }
        row.samples.push(megabytesPerSecond(bytes, 1, performance.now() - t0));
      }
    } finally {
      for (const s of stop) s();
    }
    onRound(r);
  }
  // A skipped row shows its reason, not the rounds it managed before failing.
  for (const row of rows)
    row.median = row.samples.length && row.skipped === undefined ? median(row.samples) : Number.NaN;
  return rows;
}

export async function runBrowserBench(opts: BrowserRunOptions): Promise<BrowserBenchReport> {
  const log = opts.log ?? (() => {});
  const quick = opts.quick;
  const rounds = opts.rounds ?? (quick ? 2 : 15);
  const targetMs = opts.targetMs ?? (quick ? 3 : 25);
  const sizes = opts.sizes ?? (quick ? [64, 1024, 64 * 1024, 1024 * 1024] : SIZES);
  const poolBytes = opts.poolBytes ?? (quick ? 8 << 20 : 256 << 20);
  const streamBytes = opts.streamBytes ?? (quick ? 4 << 20 : 64 << 20);
  const modes: CallStyle[] = ['one-shot', 'incremental'];
  const started = performance.now();
  const date = new Date().toISOString();

  await ready();
  const defaultBackend = backend();
  const candidates: Candidate[] = [
    ...coreCandidates(),
    coreReusedHasherCandidate(),
    await officialWasmCandidate(),
    blake3JitCandidate(),
    await hashWasmCandidate(),
    nobleCandidate(),
  ];
  // Our JS backend is the BLAKE3 reference, as in Node: the portable path every backend is tested against.
  const reference: Reference = (algorithm, input) => {
    if (algorithm === 'sha256') return sha256(input);
    setBackend('js');
    return blake3(input);
  };
  const verifications: Verification[] = [];
  const report: BrowserBenchReport = {
    schema: 1,
    kind: 'browser',
    date,
    userAgent: navigator.userAgent,
    hardwareConcurrency: navigator.hardwareConcurrency,
    crossOriginIsolated: globalThis.crossOriginIsolated === true,
    timerStepUs: timerStepUs(),
    config: { sizes, modes, rounds, targetMs, updateSize: UPDATE_SIZE, quick, clock: 'wall' },
    defaultBackend,
    baseline: `core-${defaultBackend}`,
    candidates: [
      ...candidates.map((c) => ({ id: c.id, label: c.label, algorithm: c.algorithm })),
      { id: WEBCRYPTO_ID, label: 'WebCrypto SHA-256', algorithm: 'sha256' as const },
    ],
    peers: opts.peers,
    verifications,
    cells: [],
    pool: { blobBytes: poolBytes, rounds, rows: [] },
    stream: { totalBytes: streamBytes, chunkBytes: 64 * 1024, rounds, rows: [] },
    elapsedMs: 0,
  };
  const partial = (patch: Partial<BrowserBenchReport>) => {
    Object.assign(report, patch, { elapsedMs: performance.now() - started });
    opts.onPartial?.(report);
  };

  const poolSizes = opts.poolSizes ?? [1, 2];
  const poolRounds = quick ? 1 : 7;
  const streamRounds = quick ? 1 : 7;
  const batchRounds = quick ? 2 : 11;
  // Stage weights are expected milliseconds, from the sizes and rounds and rough rates of this
  // machine kind (a sample lasts targetMs; a Blob is read or hashed at ~300 MB/s in a loaded
  // browser; a stream case at ~150): enough for a bar that moves evenly, not a prediction.
  const cellsPlanned = sizes.length * (2 * candidates.length);
  const advance = progressPlan(
    [
      { id: 'sync', label: 'implementations, size by size', weight: cellsPlanned * (rounds + 5) * targetMs },
      { id: 'webcrypto', label: 'WebCrypto SHA-256', weight: sizes.length * (rounds + 3) * targetMs },
      {
        id: 'pool',
        label: `worker pool on a ${formatSize(poolBytes)} Blob`,
        weight: (poolRounds * (poolSizes.length + (opts.startReaders ? 1 : 0)) * poolBytes) / 300e3,
      },
      {
        id: 'stream',
        label: `streams over ${formatSize(streamBytes)}`,
        weight: ((streamRounds + 2) * 18 * streamBytes) / 150e3,
      },
      { id: 'batch', label: 'batches of 4096 small messages', weight: 3 * 6 * (batchRounds + 2) * targetMs },
    ],
    (p) => opts.onProgress?.(p),
  );

  partial({});
  log(
    `${quick ? 'quick' : 'full'} run: ${rounds} rounds, ~${targetMs} ms per sample, ${candidates.length + 1} implementations`,
  );
  const sync = await runRounds({
    candidates,
    reference,
    sizes,
    modes,
    rounds,
    targetMs,
    updateSize: UPDATE_SIZE,
    log,
    pause: macrotask,
    onRound: opts.onRound,
    onProgress: (fraction, detail) => advance('sync', fraction, detail),
  });
  setBackend(defaultBackend);
  verifications.push(...sync.verifications);
  partial({ cells: [...sync.cells] });

  log('WebCrypto SHA-256');
  advance('webcrypto', 0);
  const webcrypto = await webCryptoCells(sizes, rounds, targetMs, verifications, (f) => advance('webcrypto', f));
  partial({ cells: [...sync.cells, ...webcrypto] });

  log(`worker pool on a ${formatSize(poolBytes)} Blob`);
  advance('pool', 0);
  const poolTable = await poolRows(
    {
      createPool: opts.createPool,
      sizes: poolSizes,
      startReaders: opts.startReaders,
      bytes: poolBytes,
      rounds: poolRounds,
    },
    (r) => {
      log(`pool round ${r + 1}/${poolRounds}`);
      advance('pool', (r + 1) / poolRounds, `round ${r + 1} of ${poolRounds}`);
    },
  );
  for (const row of poolTable.filter((x) => x.skipped !== undefined)) log(`${row.label}: skipped: ${row.skipped}`);
  partial({ pool: { blobBytes: poolBytes, rounds: poolRounds, rows: poolTable } });

  log(`streams over ${formatSize(streamBytes)} in 64 KiB chunks`);
  advance('stream', 0, 'encoding the Bao inputs');
  // A stage that fails leaves its table empty with the reason; the stages after it still run.
  const skipped: { stage: 'stream' | 'batch'; reason: string }[] = [];
  try {
    const streamed = await measureStreams(
      { core, stream: opts.stream },
      {
        totalBytes: streamBytes,
        chunkBytes: 64 * 1024,
        rounds: streamRounds,
        pause: macrotask,
        onRound: (r) =>
          advance(
            'stream',
            (r + 2) / (streamRounds + 1),
            r < 0 ? 'checking every case' : `round ${r + 1} of ${streamRounds}`,
          ),
      },
    );
    const streamRows: TaskRow[] = streamed.map((r) => ({
      id: r.case,
      label: r.case,
      samples: r.mbps,
      median: median(r.mbps),
    }));
    partial({ stream: { totalBytes: streamBytes, chunkBytes: 64 * 1024, rounds: streamRounds, rows: streamRows } });
  } catch (err) {
    skipped.push({ stage: 'stream', reason: describeError(err) });
    log(`streams: skipped: ${describeError(err)}`);
    partial({ skipped: [...skipped] });
  }

  log('batches of 4096 small messages');
  advance('batch', 0);
  let workloadsDone = 0;
  try {
    const batch = await measureBatches(core, {
      count: 4096,
      rounds: batchRounds,
      targetMs,
      kernel: kernelBatch,
      // All digests of a batch in flight at once, then awaited together: WebCrypto's fastest form.
      sha256: {
        label: 'WebCrypto SHA-256',
        batch: (ms) => Promise.all(ms.map((m) => crypto.subtle.digest('SHA-256', m as Uint8Array<ArrayBuffer>))),
      },
      log: (line) => {
        log(line);
        workloadsDone++;
        advance('batch', workloadsDone / 3, `${workloadsDone} of 3 workloads`);
      },
      pause: macrotask,
    });
    partial({ batch });
  } catch (err) {
    skipped.push({ stage: 'batch', reason: describeError(err) });
    log(`batches: skipped: ${describeError(err)}`);
    partial({ skipped: [...skipped] });
  }
  advance('batch', 1, 'done');
  log(`done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  return report;
}
