// Timing primitives. No Node or DOM APIs beyond a clock, so a browser page can reuse them.

/** Folds every digest's first byte in, so no engine can drop a call whose result is unused. */
let sink = 0;

/** The folded bytes; reading it keeps `sink` observable. */
export function sinkValue(): number {
  return sink;
}

/** Milliseconds taken by `n` back-to-back calls of `fn(arg)`. */
export function timeCalls<A>(fn: (arg: A) => Uint8Array, arg: A, n: number, now: () => number): number {
  const t0 = now();
  for (let i = 0; i < n; i++) sink ^= fn(arg)[0];
  return now() - t0;
}

/**
 * How many calls make one sample last about `targetMs`. Doubling from one call also warms the
 * function up; because the first calls may still run unoptimised code, the count is then
 * re-timed and rescaled until a sample lands within a factor of two of the target.
 */
export function calibrate<A>(fn: (arg: A) => Uint8Array, arg: A, targetMs: number, now: () => number): number {
  let n = 1;
  let t = timeCalls(fn, arg, n, now);
  while (t < targetMs / 4) {
    n *= 2;
    t = timeCalls(fn, arg, n, now);
  }
  for (let pass = 0; pass < 5; pass++) {
    n = Math.max(1, Math.round((n * targetMs) / Math.max(t, 1e-3)));
    t = timeCalls(fn, arg, n, now);
    if (n === 1 || (t > targetMs / 2 && t < targetMs * 2)) break;
  }
  return n;
}

/** Throughput in MB/s, decimal (1 MB = 1e6 bytes), as hash benchmarks usually report it. */
export function megabytesPerSecond(bytesPerCall: number, calls: number, ms: number): number {
  return (bytesPerCall * calls) / (ms / 1000) / 1e6;
}
