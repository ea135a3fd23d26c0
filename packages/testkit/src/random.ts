/**
 * The seed for randomized tests: fixed in CI so failures reproduce, `BLAKE3_TEST_SEED=random`
 * (or any integer) to explore. The seed in use is printed by the tests that use it.
 */
export function testSeed(): number {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.BLAKE3_TEST_SEED;
  if (env === 'random') return (Math.random() * 2 ** 32) >>> 0;
  if (env !== undefined && env !== '') return Number(env) >>> 0;
  return 0x5eed_b3;
}

/** A small deterministic generator (mulberry32): the same seed gives the same test cases everywhere. */
export class Random {
  #s: number;
  constructor(seed: number) {
    this.#s = seed >>> 0;
  }
  /** A uint32. */
  u32(): number {
    let t = (this.#s = (this.#s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor((this.u32() / 2 ** 32) * (max - min + 1));
  }
  bytes(n: number): Uint8Array<ArrayBuffer> {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i += 4) {
      const w = this.u32();
      for (let j = 0; j < 4 && i + j < n; j++) out[i + j] = w >>> (8 * j);
    }
    return out;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)];
  }
}
