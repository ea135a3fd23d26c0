import type { BundleSize } from './bundle-size.ts';
import type { Algorithm, CallStyle } from './candidate.ts';
import type { CoreRevision } from './core-revision.ts';
import type { Machine } from './machine-node.ts';
import type { Cell } from './run-rounds.ts';
import type { Verification } from './verify.ts';

/** What a sample's duration is measured in: elapsed time, or CPU time of the benchmark process. */
export type Clock = 'wall' | 'cpu';

/** What one run saves under bench/results/ and what the tables in docs/BENCHMARKS.md come from. */
export interface BenchReport {
  readonly schema: 1;
  /** ISO timestamp of the start of the run. */
  readonly date: string;
  readonly machine: Machine;
  readonly config: {
    readonly sizes: readonly number[];
    readonly modes: readonly CallStyle[];
    readonly rounds: number;
    readonly targetMs: number;
    readonly updateSize: number;
    readonly quick: boolean;
    readonly clock: Clock;
  };
  /** The source of `@blake3-web/core` that was measured. */
  readonly core: CoreRevision;
  /** The backend `@blake3-web/core` picks by itself here. */
  readonly defaultBackend: string;
  /** The candidate every ratio divides by: our core on its default backend. */
  readonly baseline: string;
  readonly candidates: readonly { id: string; label: string; algorithm: Algorithm }[];
  /** The other libraries measured, with the versions installed. */
  readonly peers: readonly { name: string; version: string }[];
  readonly bundleSizes: readonly BundleSize[];
  readonly verifications: readonly Verification[];
  readonly cells: readonly Cell[];
  /** Wall time of verification, calibration and rounds. */
  readonly elapsedMs: number;
  readonly contention: {
    /** 1-minute load averages around the run (0 where the OS does not report them). */
    readonly loadAverageBefore: number;
    readonly loadAverageAfter: number;
    /** CPU time this process got over wall time while measuring: near 1 means a core of its own. */
    readonly cpuShare: number;
  };
}
