// Inputs and output positions beyond the official vectors, checked against the official
// implementation (the Python `blake3` package) run by the test process.
import { oracle, paint } from '@blake3-web/testkit';

import { BACKENDS, openCorePageFor } from '../fixtures/backends.ts';
import { expect, test } from '../../servers/engine-test.ts';
import { modeInputs, pieceSizes, seed } from '../fixtures/vector-plans.ts';

const LARGE = 16 * 1024 * 1024;
const KEY = new TextEncoder().encode(modeInputs.key);

/** 2^32 blocks in, 2^53 + 5 (past exact doubles) and just under 2^64: where counters carry. */
const FAR_POSITIONS = [63n, (1n << 32n) * 64n - 40n, (1n << 53n) + 5n, (1n << 64n) - 200n];
const FAR_READ = 100;
const FAR_INPUT = 1025;

let largeExpected: { hash: string; keyed: string } | undefined;
function expectedLarge() {
  if (!largeExpected) {
    const data = paint(LARGE);
    const [hash, keyed] = oracle([
      { data, length: 32 },
      { data, key: KEY, length: 32 },
    ]);
    largeExpected = { hash, keyed };
  }
  return largeExpected;
}

for (const backend of BACKENDS) {
  test.describe(`reference oracle, ${backend} backend`, () => {
    test.beforeEach(async ({ enginePage }) => {
      await openCorePageFor(enginePage, backend);
    });

    test('16 MiB painted input: one-shot, incremental, keyed and as two subtrees', async ({ enginePage }) => {
      const sizes = pieceSizes(LARGE, 3 * 1024 * 1024 + 7);
      test.info().annotations.push({ type: 'seed', description: String(seed) });
      const result = await enginePage.evaluate(
        ({ backend, length, sizes, key }) => {
          const { core, hazmat } = globalThis.blake3Web!;
          core.setBackend(backend);
          const input = new Uint8Array(length);
          for (let i = 0; i < length; i++) input[i] = i % 251;
          const incremental = core.blake3.create();
          let from = 0;
          for (const size of sizes) incremental.update(input.subarray(from, (from += size)));
          const split = Number(hazmat.leftSubtreeLen(length));
          const left = hazmat.hashSubtree(input.subarray(0, split), 0);
          const right = hazmat.hashSubtree(input.subarray(split), split);
          return {
            backend: core.backend(),
            oneShot: core.bytesToHex(core.blake3(input)),
            incremental: core.bytesToHex(incremental.digest()),
            keyed: core.bytesToHex(core.blake3(input, { key: new TextEncoder().encode(key) })),
            subtrees: core.bytesToHex(hazmat.mergeSubtreesRoot(left, right)),
          };
        },
        { backend, length: LARGE, sizes, key: modeInputs.key },
      );
      const expected = expectedLarge();
      expect(result).toEqual({
        backend,
        oneShot: expected.hash,
        incremental: expected.hash,
        keyed: expected.keyed,
        subtrees: expected.hash,
      });
    });

    test('XOF reads far into the output stream, in every mode', async ({ enginePage }) => {
      const data = paint(FAR_INPUT);
      const modes = [{}, { key: KEY }, { context: modeInputs.context }];
      const expected = oracle(
        modes.flatMap((mode) => FAR_POSITIONS.map((seek) => ({ data, ...mode, length: FAR_READ, seek }))),
      );
      const actual = await enginePage.evaluate(
        ({ backend, inputLen, positions, n, key, context }) => {
          const { core } = globalThis.blake3Web!;
          core.setBackend(backend);
          const input = new Uint8Array(inputLen);
          for (let i = 0; i < inputLen; i++) input[i] = i % 251;
          const modes = [{}, { key: new TextEncoder().encode(key) }, { context }];
          return modes.flatMap((mode) => {
            const reader = core.blake3.create(mode).update(input).reader();
            return positions.map((p) => {
              reader.position = BigInt(p);
              return core.bytesToHex(reader.read(n));
            });
          });
        },
        { backend, inputLen: FAR_INPUT, positions: FAR_POSITIONS.map(String), n: FAR_READ, ...modeInputs },
      );
      const labels = ['hash', 'keyed_hash', 'derive_key'].flatMap((mode) =>
        FAR_POSITIONS.map((p) => `${mode} at ${p}`),
      );
      expect(Object.fromEntries(labels.map((l, i) => [l, actual[i]]))).toEqual(
        Object.fromEntries(labels.map((l, i) => [l, expected[i]])),
      );
    });
  });
}
