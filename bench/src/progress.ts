// How far a run is, for a progress bar: the run is a list of stages, each weighted by the time
// it is expected to take (estimated from its sizes and rounds), and each stage reports the
// fraction of its own work done. No DOM or Node APIs.

export interface Stage {
  readonly id: string;
  /** What the bar says while this stage runs. */
  readonly label: string;
  /** Expected share of the run: any unit, the same for every stage (estimated milliseconds). */
  readonly weight: number;
}

export interface Progress {
  /** The stage's label, with what it is doing now when it says. */
  readonly step: string;
  /** Of the whole run, in [0, 1]; never goes back. */
  readonly fraction: number;
}

/** Reports `fraction` of stage `id` done (clamped to [0, 1]), with an optional detail. */
export type Advance = (id: string, fraction: number, detail?: string) => void;

export function progressPlan(stages: readonly Stage[], report: (p: Progress) => void): Advance {
  const total = stages.reduce((n, s) => n + Math.max(0, s.weight), 0) || 1;
  const before = new Map<string, number>();
  let offset = 0;
  for (const s of stages) {
    before.set(s.id, offset);
    offset += Math.max(0, s.weight);
  }
  let shown = 0;
  return (id, fraction, detail) => {
    const stage = stages.find((s) => s.id === id);
    if (stage === undefined) throw new RangeError(`progress: unknown stage ${JSON.stringify(id)}`);
    const within = Math.min(1, Math.max(0, Number.isFinite(fraction) ? fraction : 0));
    // Estimates are rough: a stage that runs long must not move the bar backwards.
    shown = Math.max(shown, (before.get(id)! + within * Math.max(0, stage.weight)) / total);
    report({ step: detail ? `${stage.label}: ${detail}` : stage.label, fraction: Math.min(1, shown) });
  };
}
