// Every official vector in every mode, through the built package in the browser: incremental
// with random split points, and the XOF reader with seeks (one-shot calls are in conformance.spec.ts).
import { BACKENDS, openCorePageFor } from '../fixtures/backends.ts';
import { expect, test } from '../../servers/engine-test.ts';
import { expectedHex, FULL_LEN, modeInputs, readPlans, seed, splitPlans } from '../fixtures/vector-plans.ts';

for (const backend of BACKENDS) {
  test.describe(`official vectors, ${backend} backend`, () => {
    test.beforeEach(async ({ enginePage }) => {
      await openCorePageFor(enginePage, backend);
      test.info().annotations.push({ type: 'seed', description: String(seed) });
    });

    test('incremental Hasher: random split points, 131 and 32 bytes', async ({ enginePage }) => {
      const plans = splitPlans();
      const result = await enginePage.evaluate(
        ({ backend, plans, key, context, fullLen }) => {
          const { core } = globalThis.blake3Web!;
          core.setBackend(backend);
          const opts = (mode: string) =>
            mode === 'keyed_hash' ? { key: new TextEncoder().encode(key) } : mode === 'derive_key' ? { context } : {};
          return {
            backend: core.backend(),
            outputs: plans.map(({ len, mode, cuts }) => {
              const input = new Uint8Array(len);
              for (let i = 0; i < len; i++) input[i] = i % 251;
              const full = core.blake3.create({ ...opts(mode), dkLen: fullLen });
              const short = core.blake3.create(opts(mode));
              let from = 0;
              for (const to of [...cuts, len]) {
                full.update(input.subarray(from, to));
                short.update(input.subarray(from, to));
                from = to;
              }
              return { full: core.bytesToHex(full.digest()), short: core.bytesToHex(short.digest()) };
            }),
          };
        },
        { backend, plans, ...modeInputs, fullLen: FULL_LEN },
      );
      expect(result.backend).toBe(backend);
      expect(result.outputs).toHaveLength(plans.length);
      const wrong = plans.flatMap(({ len, mode, cuts }, i) => {
        const what = `${mode} len=${len} updates split at [${cuts.join(', ')}]`;
        return [
          ...mismatch(`${what} dkLen=${FULL_LEN}`, expectedHex(len, mode), result.outputs[i].full),
          ...mismatch(`${what} dkLen=32`, expectedHex(len, mode, 32), result.outputs[i].short),
        ];
      });
      expect(wrong).toEqual([]);
    });

    test('XOF: reader() with seeks and stepwise reads gives the 131-byte outputs', async ({ enginePage }) => {
      const plans = readPlans();
      const result = await enginePage.evaluate(
        ({ backend, plans, key, context }) => {
          const { core } = globalThis.blake3Web!;
          core.setBackend(backend);
          const opts = (mode: string) =>
            mode === 'keyed_hash' ? { key: new TextEncoder().encode(key) } : mode === 'derive_key' ? { context } : {};
          return {
            backend: core.backend(),
            outputs: plans.map(({ len, mode, seeks, steps }) => {
              const input = new Uint8Array(len);
              for (let i = 0; i < len; i++) input[i] = i % 251;
              const reader = core.blake3.create(opts(mode)).update(input).reader();
              const sought = seeks.map(([position, n]) => {
                reader.position = BigInt(position);
                const bytes = core.bytesToHex(reader.read(n));
                return { bytes, after: String(reader.position) };
              });
              reader.position = 0n;
              const stepped = steps.map((n) => core.bytesToHex(reader.read(n))).join('');
              return { sought, stepped };
            }),
          };
        },
        { backend, plans, ...modeInputs },
      );
      expect(result.backend).toBe(backend);
      expect(result.outputs).toHaveLength(plans.length);
      const wrong = plans.flatMap(({ len, mode, seeks, steps }, i) => {
        const full = expectedHex(len, mode);
        const { sought, stepped } = result.outputs[i];
        return [
          ...seeks.flatMap(([position, n], j) => [
            ...mismatch(
              `${mode} len=${len} read(${n}) at ${position}`,
              full.slice(2 * position, 2 * (position + n)),
              sought[j].bytes,
            ),
            ...mismatch(
              `${mode} len=${len} position after read(${n}) at ${position}`,
              String(position + n),
              sought[j].after,
            ),
          ]),
          ...mismatch(`${mode} len=${len} reads of [${steps.join(', ')}] bytes from 0`, full, stepped),
        ];
      });
      expect(wrong).toEqual([]);
    });
  });
}

/** A readable line per wrong output, so one failure shows every case that broke. */
function mismatch(what: string, expected: string, actual: string): string[] {
  return expected === actual ? [] : [`${what}: expected ${expected}, got ${actual}`];
}
