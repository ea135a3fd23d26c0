import { blake3, bytesToHex, hexToBytes } from '@blake3-web/core';
import { assertConformance, conformanceSuite, officialVectors, paint, Random, testSeed } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forEachBackend } from './_backends.ts';

const { cases, context_string: context } = officialVectors;
const key = new TextEncoder().encode(officialVectors.key);
const modes = [
  { name: 'hash', opts: {}, expected: (c: (typeof cases)[number]) => c.hash },
  { name: 'keyed_hash', opts: { key }, expected: (c: (typeof cases)[number]) => c.keyed_hash },
  { name: 'derive_key', opts: { context }, expected: (c: (typeof cases)[number]) => c.derive_key },
] as const;

forEachBackend('official vectors', () => {
  it('conformance suite: one-shot blake3() in every mode, output lengths 0, 1, 32 and 131', async () => {
    const report = await assertConformance({
      hash: (input, { key, context, outputLength }) => blake3(input, { key, context, dkLen: outputLength }),
    });
    assert.equal(report.planned, cases.length * 3 * 4);
  });

  it('the conformance suite catches an implementation that gets one case wrong', async () => {
    const report = await conformanceSuite(officialVectors, {
      hash: (input, { key, context, outputLength }) =>
        blake3(input.length === 1025 ? input.subarray(1) : input, { key, context, dkLen: outputLength }),
    });
    // Input 1025 in every mode and output length but 0, where every digest is empty.
    assert.equal(report.failures.length, 3 * 3);
    assert.match(report.failures[0], /^hash, input 1025 bytes, output 1 bytes: expected /);
  });

  for (const mode of modes) {
    it(`${mode.name}: incremental, at update sizes 1, 63, 64, 65, 1000, 1024, 1025 and random`, () => {
      const rng = new Random(testSeed());
      for (const c of cases) {
        const input = paint(c.input_len);
        const full = mode.expected(c);
        for (const step of [1, 63, 64, 65, 1000, 1024, 1025, 0]) {
          const h = blake3.create({ ...mode.opts, dkLen: 131 });
          for (let i = 0; i < input.length;) {
            const n = step || rng.int(0, 3000);
            h.update(input.subarray(i, i + n));
            i += n;
          }
          assert.equal(bytesToHex(h.digest()), full, `input_len ${c.input_len}, updates of ${step || 'random'}`);
        }
      }
    });

    it(`${mode.name}: incremental with 32-byte digests: fresh and reused hashers, each update a new array`, () => {
      const reused = blake3.create(mode.opts);
      for (const c of cases) {
        const input = paint(c.input_len);
        const want = mode.expected(c).slice(0, 64);
        for (const step of [1, 7, 64, 65, 1024, 1025]) {
          const fresh = blake3.create(mode.opts);
          reused.reset();
          for (let i = 0; i < input.length; i += step) {
            // A new array per update: short ones stay inside V8's heap, a separate path.
            const piece = Uint8Array.from(input.subarray(i, i + step));
            fresh.update(piece);
            reused.update(piece);
          }
          assert.equal(bytesToHex(fresh.digest()), want, `input_len ${c.input_len}, fresh hasher, updates of ${step}`);
          assert.equal(
            bytesToHex(reused.digest()),
            want,
            `input_len ${c.input_len}, reused hasher, updates of ${step}`,
          );
        }
        assert.equal(
          bytesToHex(blake3(Uint8Array.from(input), mode.opts)),
          want,
          `input_len ${c.input_len}, one-shot of a new array`,
        );
      }
    });

    it(`${mode.name}: XOF reader at every position and read size`, () => {
      for (const c of cases.filter((_, i) => i % 4 === 0)) {
        const full = hexToBytes(mode.expected(c));
        const reader = blake3.create(mode.opts).update(paint(c.input_len)).reader();
        for (let pos = 0; pos < full.length; pos += 7) {
          reader.position = BigInt(pos);
          const n = Math.min(19, full.length - pos);
          assert.deepEqual(reader.read(n), full.subarray(pos, pos + n), `input_len ${c.input_len}, position ${pos}`);
          assert.equal(reader.position, BigInt(pos + n));
        }
      }
    });
  }
});
