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
 * How many calls make one sample last about `targetMs`. Doubling first also warms the function
 * up, so the optimising compiler has seen it before the first real sample.
 */
export function calibrate<A>(fn: (arg: A) => Uint8Array, arg: A, targetMs: number, now: () => number): number {
  let n = 1;
  let t = timeCalls(fn, arg, n, now);
  while (t < targetMs / 4) {
    n *= 2;
    t = timeCalls(fn, arg, n, now);
  }
  return Math.max(1, Math.round((n * targetMs) / Math.max(t, 1e-3)));
}

/** Throughput in MB/s, decimal (1 MB = 1e6 bytes), as hash benchmarks usually report it. */
export function megabytesPerSecond(bytesPerCall: number, calls: number, ms: number): number {
  return (bytesPerCall * calls) / (ms / 1000) / 1e6;
}
