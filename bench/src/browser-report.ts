import type { BatchResult } from './batch-measure.ts';
import type { Algorithm, CallStyle } from './candidate.ts';
import type { Cell } from './run-rounds.ts';
import type { TaskRow } from './task-row.ts';
import type { Verification } from './verify.ts';

/** What the benchmark page measures in one browser; the JSON it exports. */
export interface BrowserBenchReport {
  readonly schema: 1;
  readonly kind: 'browser';
  /** ISO timestamp of the start of the run. */
  readonly date: string;
  readonly userAgent: string;
  /** What the page was told; WebKitGTK reports 4 on 2 cores, so the driver records the truth. */
  readonly hardwareConcurrency: number;
  readonly crossOriginIsolated: boolean;
  /** Smallest step of performance.now() seen, in microseconds. */
  readonly timerStepUs: number;
  readonly config: {
    readonly sizes: readonly number[];
    readonly modes: readonly CallStyle[];
    readonly rounds: number;
    readonly targetMs: number;
    readonly updateSize: number;
    readonly quick: boolean;
    readonly clock: 'wall';
  };
  readonly defaultBackend: string;
  readonly baseline: string;
  readonly candidates: readonly { id: string; label: string; algorithm: Algorithm }[];
  readonly peers: readonly { name: string; version: string }[];
  readonly verifications: readonly Verification[];
  readonly cells: readonly Cell[];
  /**
   * @blake3-web/worker's pool on one large Blob, per pool size; first, where the page measured
   * it, the row `read` (workers that only read the Blob), the ceiling of every pool row.
   */
  readonly pool: { readonly blobBytes: number; readonly rounds: number; readonly rows: TaskRow[] };
  /** Blake3Stream (and friends) over chunks of one stream, against one-shot over the same bytes. */
  readonly stream: {
    readonly totalBytes: number;
    readonly chunkBytes: number;
    readonly rounds: number;
    readonly rows: TaskRow[];
  };
  /** hashMany / hashManyInto against a loop of blake3() on batches of small messages (absent from older runs). */
  readonly batch?: readonly BatchResult[];
  /** Stages that failed as a whole (their tables stay empty), with the reason. */
  readonly skipped?: readonly { readonly stage: 'stream' | 'batch'; readonly reason: string }[];
  readonly elapsedMs: number;
}
