// The kernel alone in several shapes, side by side in one engine: `chunks(64, ...)` with 6 merge
// levels, no copies, interleaved rounds, medians. No Node APIs: Node, Deno, Bun and browser
// pages run it. Each shape is first checked against the first one (counters around 2^32 too),
// so a wrong shape never becomes a number.
import { CV_PTR, IN_PTR, KEY_PTR, type KernelExports } from '../../packages/core/src/wasm/_layout.ts';
import { hashModule, type KernelOptions } from '../../packages/core/src/wasm/_generator.ts';

/** Shapes worth comparing: V8's, JavaScriptCore's and SpiderMonkey's. */
export const SHAPES: Readonly<Record<string, KernelOptions>> = {
  default: {},
  'steps shuffle': { order: 'steps', rotate: 'shuffle' },
  'g shuffle': { order: 'g', rotate: 'shuffle' },
};

const IV = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
const BYTES = 64 * 1024;

/** MB/s (10^6 bytes per second) of each named shape, medians of `rounds` interleaved rounds of `sampleMs` each. */
export function measureShapes(
  names: readonly string[],
  rounds: number,
  sampleMs: number,
  now: () => number,
): Record<string, number> {
  const input = Uint8Array.from({ length: BYTES }, (_, i) => (i * 7 + (i >> 9)) % 251);
  const runs: Record<string, () => void> = {};
  let reference: string | undefined;
  for (const name of names) {
    const shape = SHAPES[name];
    if (!shape) throw new RangeError(`unknown shape ${JSON.stringify(name)}; known: ${Object.keys(SHAPES).join(', ')}`);
    const bytes = hashModule(shape);
    const k = new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports as unknown as KernelExports;
    const mem32 = new Uint32Array(k.memory.buffer);
    new Uint8Array(k.memory.buffer).set(input, IN_PTR);
    mem32.set(IV, KEY_PTR >> 2);
    let cvs = '';
    for (const [lo, hi, merges] of [
      [5, 0, 6],
      [0xfffffffe, 3, 4],
    ]) {
      k.chunks(64, lo, hi, 0, merges);
      cvs += mem32.subarray(CV_PTR >> 2, (CV_PTR >> 2) + 128).join() + ';';
    }
    if ((reference ??= cvs) !== cvs) throw new Error(`shape ${name} hashes differently from ${names[0]}`);
    runs[name] = () => k.chunks(64, 0, 0, 0, 6);
  }
  const samples: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (const n of names) for (let i = 0; i < 300; i++) runs[n]();
  for (let r = 0; r < rounds; r++) {
    for (const n of r % 2 ? [...names].reverse() : names) {
      let calls = 0;
      const t0 = now();
      let t: number;
      do {
        for (let i = 0; i < 20; i++) runs[n]();
        calls += 20;
      } while ((t = now() - t0) < sampleMs);
      samples[n].push((calls * BYTES) / t / 1e3);
    }
  }
  const median = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1];
  return Object.fromEntries(names.map((n) => [n, median(samples[n])]));
}
