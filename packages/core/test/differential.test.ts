// Differential tests against the official implementation (the `blake3` Python package): random
// lengths, modes, keys, contexts, update split points, output lengths, XOF positions and
// misaligned views. Fixed seed by default; BLAKE3_TEST_SEED=random explores.
import { blake3, bytesToHex, hashMany, hashManyInto, type Blake3Opts } from '@blake3-web/core';
import { oracle, Random, testSeed, type OracleRequest } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forEachBackend } from './_backends.ts';

const seed = testSeed();
const CASES = Number(
  (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env.BLAKE3_TEST_CASES ?? 48,
);

type Case = OracleRequest & { opts: Blake3Opts; splits: number[]; misalign: number };

function randomLength(rng: Random): number {
  switch (rng.int(0, 4)) {
    case 0:
      return rng.int(0, 2100);
    case 1:
      return rng.int(0, 70_000);
    // Around multiples of 4 chunks, where the SIMD groups start and end.
    case 2:
      return rng.int(1, 64) * 4096 + rng.int(-65, 65);
    case 3:
      return rng.int(0, 1 << 20);
    default:
      return rng.int(1 << 20, 3 << 20);
  }
}

function makeCases(rng: Random): Case[] {
  const cases: Case[] = [];
  for (let i = 0; i < CASES; i++) {
    const data = rng.bytes(Math.max(0, randomLength(rng)));
    const length = rng.pick([0, 1, 31, 32, 33, 64, 65, 131, rng.int(0, 2000)]); // at most 4096: see the last seek
    // XOF positions: small, past 2^32 blocks (2^38 bytes), far past it, and the end of the 2^64-byte stream.
    const seek = rng.pick([
      0n,
      BigInt(rng.int(0, 5000)),
      (1n << 38n) + BigInt(rng.int(-300, 300)),
      (1n << 32n) * 64n * BigInt(rng.int(1, 1000)) + BigInt(rng.int(0, 63)),
      (1n << 64n) - 4096n - BigInt(rng.int(0, 64)),
    ]);
    const mode = rng.int(0, 2);
    const key = mode === 1 ? rng.bytes(32) : undefined;
    const context =
      mode === 2 ? `blake3-web ${rng.u32().toString(16)} test context ${'é✓'.repeat(rng.int(0, 3))}` : undefined;
    const splits = Array.from({ length: rng.int(0, 6) }, () => rng.int(0, data.length)).sort((a, b) => a - b);
    cases.push({
      data,
      key,
      context,
      length,
      seek,
      opts: key ? { key } : context !== undefined ? { context } : {},
      splits,
      misalign: rng.int(0, 3),
    });
  }
  return cases;
}

/** A copy of `data` at byte offset `misalign` of its buffer, so 4-byte word reads are unaligned. */
function misaligned(data: Uint8Array, misalign: number): Uint8Array {
  const buf = new Uint8Array(data.length + misalign);
  buf.set(data, misalign);
  return buf.subarray(misalign);
}

const cases = makeCases(new Random(seed));
const expected = oracle(cases);

// Batches: lengths around every block and chunk boundary up to 17 chunks (trees in the lanes up to
// 16, the one-shot path past that), in each mode, one batch per mode.
const batchLengths = [
  ...Array.from({ length: 130 }, (_, n) => n),
  ...Array.from({ length: 17 }, (_, k) => [-65, -64, -63, -1, 0, 1, 63, 64, 65].map((d) => (k + 1) * 1024 + d)).flat(),
];
const batchRng = new Random(seed + 2);
const batchModes = [{}, { key: batchRng.bytes(32) }, { context: 'blake3-web batch differential' }] as const;
const batches = batchModes.map((m) => batchLengths.map((n) => ({ data: batchRng.bytes(n), ...m, length: 32 })));
const batchExpected = oracle(batches.flat());

forEachBackend(`differential vs the official implementation (seed ${seed})`, () => {
  it('one-shot, from misaligned views, with dkLen', () => {
    for (const [i, c] of cases.entries()) {
      if (c.seek !== 0n) continue;
      const got = blake3(misaligned(c.data, c.misalign), { ...c.opts, dkLen: c.length });
      assert.equal(bytesToHex(got), expected[i], `case ${i}: ${c.data.length} bytes`);
    }
  });

  it('incremental at random split points, then the XOF from a random position', () => {
    for (const [i, c] of cases.entries()) {
      const h = blake3.create(c.opts);
      let prev = 0;
      for (const s of [...c.splits, c.data.length]) {
        h.update(misaligned(c.data.subarray(prev, s), (c.misalign + s) & 3));
        prev = s;
      }
      const reader = h.reader();
      reader.position = c.seek!;
      assert.equal(
        bytesToHex(reader.read(c.length)),
        expected[i],
        `case ${i}: ${c.data.length} bytes, splits ${c.splits}, seek ${c.seek}`,
      );
    }
  });

  it('hashMany and hashManyInto at every block and chunk boundary up to 17 chunks, in every mode', () => {
    batches.forEach((batch, b) => {
      const m = batchModes[b];
      const opts: Blake3Opts = 'key' in m ? { key: m.key } : 'context' in m ? { context: m.context } : {};
      const want = batchExpected.slice(b * batchLengths.length, (b + 1) * batchLengths.length);
      const inputs = batch.map((r, i) => misaligned(r.data, i & 3));
      assert.deepEqual(hashMany(inputs, opts).map(bytesToHex), want, `mode ${Object.keys(opts)}`);
      const out = new Uint8Array(32 * inputs.length);
      hashManyInto(inputs, out, opts);
      for (let i = 0; i < inputs.length; i++)
        assert.equal(bytesToHex(out.subarray(32 * i, 32 * i + 32)), want[i], `length ${batchLengths[i]}`);
    });
  });
});
