// The measuring core: verification, calibration and interleaved rounds. Pure ESM with no Node or
// DOM APIs, so a browser page can drive it with its own candidates, clock and logger.
import type { Candidate, CallStyle, Reference } from './candidate.ts';
import { calibrate, megabytesPerSecond, sinkValue, timeCalls } from './measure.ts';
import { formatSize, paintInput, splitInput } from './sizes.ts';
import { median, quantile } from './stats.ts';
import { referenceCache, verifyCell, type Verification } from './verify.ts';

/** About how many sample lengths calibrating one cell takes (doubling up, then rescaling). */
const CALIBRATION_SAMPLES = 4;

export interface RunOptions {
  readonly candidates: readonly Candidate[];
  readonly reference: Reference;
  readonly sizes: readonly number[];
  readonly modes: readonly CallStyle[];
  /** Each round samples every verified (mode, size, candidate) cell once. */
  readonly rounds: number;
  /** How long one sample should last; calls per sample are fixed per cell before round 1. */
  readonly targetMs: number;
  /** Piece size for incremental mode. */
  readonly updateSize: number;
  readonly now?: () => number;
  readonly log?: (line: string) => void;
  /** Awaited between samples: a browser page passes a macrotask so it stays responsive. */
  readonly pause?: () => Promise<void>;
  /** Called after every round with every cell so far: a page draws its table as rounds complete. */
  readonly onRound?: (cells: readonly Cell[], round: number) => void;
  /** Work done so far of the whole call, in [0, 1], with what is being done: for a progress bar. */
  readonly onProgress?: (fraction: number, detail: string) => void;
  // No forced garbage collection between samples: tried with `node --expose-gc`, it reset V8's
  // heap sizing so that hashers allocated per message ran at 14.5 MB/s instead of 24 at 64 B,
  // with twice the spread. Steady state is what applications see.
}

/** Every sample of one implementation at one size in one mode. */
export interface Cell {
  readonly mode: CallStyle;
  readonly candidate: string;
  readonly size: number;
  /** Calls per sample, fixed after the warm-up round. */
  calls: number;
  /** MB/s of each round's sample, in round order. */
  readonly samples: number[];
  median: number;
  q1: number;
  q3: number;
}

export interface RunResult {
  readonly verifications: Verification[];
  readonly cells: Cell[];
  readonly elapsedMs: number;
}

interface Work {
  readonly cell: Cell;
  readonly select: (() => void) | undefined;
  readonly fn: (arg: never) => Uint8Array;
  readonly arg: unknown;
}

/** The function that a cell times, with its argument, or undefined if the mode is not offered. */
function bind(c: Candidate, mode: CallStyle, input: Uint8Array, pieces: readonly Uint8Array[]) {
  if (mode === 'one-shot') return c.oneShot ? { fn: c.oneShot, arg: input } : undefined;
  return c.incremental ? { fn: c.incremental, arg: pieces } : undefined;
}

/**
 * The order of round `round`: a shuffle seeded by the round number, so every run uses the same
 * sequence of orders. A plain rotation changes who starts but keeps each implementation after
 * the same neighbour, and what a neighbour leaves behind (garbage, cache contents) then biases
 * one row: rotated, our two backends differed by 11% at 64 B running the same JS code; apart, 0%.
 */
export function roundOrder<T>(items: readonly T[], round: number): T[] {
  const out = [...items];
  const random = mulberry32((round + 1) * 0x9e3779b9);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** mulberry32: small, fast, and good enough to decorrelate orders; numbers in [0, 1). */
export function mulberry32(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export async function runRounds(opts: RunOptions): Promise<RunResult> {
  const now = opts.now ?? (() => performance.now());
  const log = opts.log ?? (() => {});
  const started = now();
  const verifications: Verification[] = [];
  // groups[mode][size] lists the cells of one (mode, size) in candidate order.
  const groups: Work[][] = [];
  // Progress in sample lengths: calibrating a cell takes about CALIBRATION_SAMPLES of them, the
  // warm-up round one, each round one. Cells are counted before verification drops any.
  const planned =
    opts.sizes.length *
    opts.modes.reduce(
      (n, mode) => n + opts.candidates.filter((c) => (mode === 'one-shot' ? c.oneShot : c.incremental)).length,
      0,
    );
  const totalUnits = Math.max(1, planned * (CALIBRATION_SAMPLES + 1 + opts.rounds));
  let units = 0;
  const progress = (detail: string, add: number) => {
    units += add;
    opts.onProgress?.(units / totalUnits, detail);
  };
  progress('verifying and calibrating', 0);

  for (const size of opts.sizes) {
    const input = paintInput(size);
    const pieces = splitInput(input, opts.updateSize);
    const expected = referenceCache(opts.reference, input);
    for (const mode of opts.modes) {
      const group: Work[] = [];
      for (const c of opts.candidates) {
        const bound = bind(c, mode, input, pieces);
        if (!bound) continue;
        const fn = bound.fn as (arg: unknown) => Uint8Array;
        const v = await verifyCell(c, mode, size, () => fn(bound.arg), expected);
        verifications.push(v);
        if (!v.ok) {
          log(`WRONG OUTPUT, not measured: ${c.label}, ${mode}, ${size} B: ${v.detail}`);
          continue;
        }
        c.select?.();
        const calls = calibrate(fn, bound.arg, opts.targetMs, now);
        const cell: Cell = { mode, candidate: c.id, size, calls, samples: [], median: 0, q1: 0, q3: 0 };
        group.push({ cell, select: c.select, fn, arg: bound.arg });
        progress(`verifying and calibrating ${formatSize(size)}`, CALIBRATION_SAMPLES);
      }
      groups.push(group);
    }
    log(`verified and calibrated ${size} B`);
  }

  // One untimed round with the calls rescaled afterwards: a cell calibrated while its code was
  // still being optimised got too few calls (samples of 8 ms instead of 30 measured here), and
  // allocation-heavy cells give different MB/s for different sample lengths.
  for (const group of groups) {
    for (const w of group) {
      w.select?.();
      const ms = timeCalls(w.fn as (arg: unknown) => Uint8Array, w.arg, w.cell.calls, now);
      w.cell.calls = Math.max(1, Math.round((w.cell.calls * opts.targetMs) / Math.max(ms, 1e-3)));
    }
    progress('warm-up round', group.length);
  }
  log('warm-up round done');

  for (let r = 0; r < opts.rounds; r++) {
    for (const group of groups) {
      for (const w of roundOrder(group, r)) {
        w.select?.();
        const ms = timeCalls(w.fn as (arg: unknown) => Uint8Array, w.arg, w.cell.calls, now);
        w.cell.samples.push(megabytesPerSecond(w.cell.size, w.cell.calls, ms));
        progress(`round ${r + 1} of ${opts.rounds}`, 1);
        if (opts.pause) await opts.pause();
      }
    }
    log(`round ${r + 1}/${opts.rounds} done at ${((now() - started) / 1000).toFixed(0)} s`);
    opts.onRound?.(
      groups.flat().map((w) => w.cell),
      r,
    );
  }

  const cells = groups.flat().map((w) => w.cell);
  for (const cell of cells) {
    cell.median = median(cell.samples);
    cell.q1 = quantile(cell.samples, 0.25);
    cell.q3 = quantile(cell.samples, 0.75);
  }
  // Observing the sink after timing keeps every digest live without costing anything inside.
  if (Number.isNaN(sinkValue())) log('unreachable');
  return { verifications, cells, elapsedMs: now() - started };
}
