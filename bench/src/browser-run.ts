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
} from './candidates-blake3.ts';
import { megabytesPerSecond } from './measure.ts';
import { roundOrder, runRounds, type Cell } from './run-rounds.ts';
import { paintInput, SIZES, UPDATE_SIZE } from './sizes.ts';
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
    await macrotask();
  }
  for (const { cell } of work) {
    cell.median = median(cell.samples);
    cell.q1 = quantile(cell.samples, 0.25);
    cell.q3 = quantile(cell.samples, 0.75);
  }
  return work.map((w) => w.cell);
}

/** Pools of 1 and 2 workers on the same Blob, alternating in shuffled order every round. */
async function poolRows(
  createPool: (size: number) => PoolLike,
  bytes: number,
  rounds: number,
  log: (l: string) => void,
): Promise<TaskRow[]> {
  let data: Uint8Array | undefined = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i += 4096) data[i] = (i >>> 12) % 251;
  const expected = hex(blake3(data));
  const blob = new Blob([data as Uint8Array<ArrayBuffer>]);
  data = undefined; // The Blob holds its own copy; let the array go.
  const sizes = [1, 2];
  const pools = new Map(sizes.map((s) => [s, createPool(s)]));
  const rows: TaskRow[] = sizes.map((s) => ({
    id: `pool-${s}`,
    label: `pool of ${s} worker${s > 1 ? 's' : ''}`,
    samples: [],
    median: 0,
  }));
  try {
    // Round -1 starts the workers, warms them up and checks the answers.
    for (let r = -1; r < rounds; r++) {
      for (const s of roundOrder(sizes, Math.max(r, 0))) {
        const t0 = performance.now();
        const got = hex(await pools.get(s)!.hashBlob(blob));
        const ms = performance.now() - t0;
        if (got !== expected) throw new Error(`pool of ${s} gave ${got}, expected ${expected}`);
        if (r >= 0) rows[s - 1].samples.push(megabytesPerSecond(bytes, 1, ms));
      }
      if (r >= 0) log(`pool round ${r + 1}/${rounds}`);
    }
  } finally {
    for (const p of pools.values()) p.terminate();
  }
  for (const row of rows) row.median = median(row.samples);
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
  });
  setBackend(defaultBackend);
  verifications.push(...sync.verifications);
  partial({ cells: [...sync.cells] });

  log('WebCrypto SHA-256');
  const webcrypto = await webCryptoCells(sizes, rounds, targetMs, verifications);
  partial({ cells: [...sync.cells, ...webcrypto] });

  log(`worker pool on a ${poolBytes >> 20} MiB Blob`);
  const poolRounds = quick ? 1 : 7;
  partial({
    pool: {
      blobBytes: poolBytes,
      rounds: poolRounds,
      rows: await poolRows(opts.createPool, poolBytes, poolRounds, log),
    },
  });

  log(`streams over ${streamBytes >> 20} MiB in 64 KiB chunks`);
  const streamRounds = quick ? 1 : 7;
  const streamed = await measureStreams(
    { core, stream: opts.stream },
    { totalBytes: streamBytes, chunkBytes: 64 * 1024, rounds: streamRounds },
  );
  const streamRows: TaskRow[] = streamed.map((r) => ({
    id: r.case,
    label: r.case,
    samples: r.mbps,
    median: median(r.mbps),
  }));
  partial({ stream: { totalBytes: streamBytes, chunkBytes: 64 * 1024, rounds: streamRounds, rows: streamRows } });

  log('batches of 4096 small messages');
  const batch = await measureBatches(core, {
    count: 4096,
    rounds: quick ? 2 : 11,
    targetMs,
    kernel: kernelBatch,
    // All digests of a batch in flight at once, then awaited together: WebCrypto's fastest form.
    sha256: {
      label: 'WebCrypto SHA-256',
      batch: (ms) => Promise.all(ms.map((m) => crypto.subtle.digest('SHA-256', m as Uint8Array<ArrayBuffer>))),
    },
    log,
    pause: macrotask,
  });
  partial({ batch });
  log(`done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  return report;
}
