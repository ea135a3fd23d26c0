/** Timings of one whole-task case (a pool size, a stream shape), one sample per round. */
export interface TaskRow {
  readonly id: string;
  label: string;
  /** MB/s of each round, in round order. */
  readonly samples: number[];
  /** NaN (null in JSON) when the row has no samples or was skipped. */
  median: number;
  /** Why the row has no number: the engine failed its work (its own words), or a wrong answer. */
  skipped?: string;
}
