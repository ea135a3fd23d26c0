/** Timings of one whole-task case (a pool size, a stream shape), one sample per round. */
export interface TaskRow {
  readonly id: string;
  readonly label: string;
  /** MB/s of each round, in round order. */
  readonly samples: number[];
  median: number;
}
