// hashMany in every engine and backend: the built package's batch path against per-message
// blake3() in the page, and against the same messages hashed by Node in the test process.
import { blake3, bytesToHex } from '@blake3-web/core';
import { BACKENDS, openCorePageFor } from '../fixtures/backends.ts';
import { expect, test } from '../fixtures/test.ts';

/** Message lengths: every length 0..2049, then trees of 2-17 chunks, a 1 MiB one among them, more small ones. */
const LENGTHS = [
  ...Array.from({ length: 2050 }, (_, n) => n),
  ...[2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 17].flatMap((c) => [c * 1024 - 1, c * 1024, c * 1024 + 1]),
  1 << 20,
  ...Array.from({ length: 37 }, (_, i) => (i * 977) % 4097),
];
const KEY_HEX = '0f'.repeat(32);
const CONTEXT = 'blake3-web 2026-11 e2e hashMany';
const MODES = ['hash', 'keyed_hash', 'derive_key'] as const;
const DKLENS = [0, 1, 32, 33, 64, 131];

/** Message n: its bytes are (i + n) % 251, so the page and Node build the same ones. */
function message(len: number, n: number): Uint8Array {
  const m = new Uint8Array(len);
  for (let i = 0; i < len; i++) m[i] = (i + n) % 251;
  return m;
}

for (const backend of BACKENDS) {
  test.describe(`hashMany, ${backend} backend`, () => {
    test.beforeEach(async ({ enginePage }) => {
      await openCorePageFor(enginePage, backend);
    });

    test('equals blake3() per message: lengths 0..2049 and mixed, every mode, dkLen 0/1/32/33/64/131, odd offsets', async ({
      enginePage,
    }) => {
      const result = await enginePage.evaluate(
        ({ backend, lengths, modes, dkLens, keyHex, context }) => {
          const { core } = globalThis.blake3Web!;
          core.setBackend(backend);
          // Each message at an odd offset of one shared buffer.
          const total = lengths.reduce((s, l) => s + l + 1, 0);
          const pool = new Uint8Array(total);
          let at = 0;
          const inputs = lengths.map((len, n) => {
            const m = pool.subarray(at + 1, at + 1 + len);
            for (let i = 0; i < len; i++) m[i] = (i + n) % 251;
            at += len + 1;
            return m;
          });
          const outputs: { mode: string; dkLen: number; wrong: number[]; digests: string[] }[] = [];
          for (const mode of modes) {
            for (const dkLen of dkLens) {
              const opts = {
                dkLen,
                ...(mode === 'keyed_hash'
                  ? { key: core.hexToBytes(keyHex) }
                  : mode === 'derive_key'
                    ? { context }
                    : {}),
              };
              const got = core.hashMany(inputs, opts);
              const into = new Uint8Array(inputs.length * dkLen);
              core.hashManyInto(inputs, into, opts);
              const wrong: number[] = [];
              inputs.forEach((x, i) => {
                const hex = core.bytesToHex(core.blake3(x, opts));
                if (
                  core.bytesToHex(got[i]) !== hex ||
                  core.bytesToHex(into.subarray(i * dkLen, (i + 1) * dkLen)) !== hex
                )
                  wrong.push(i);
              });
              // Every 97th digest goes back for Node to check.
              outputs.push({ mode, dkLen, wrong, digests: got.filter((_, i) => i % 97 === 0).map(core.bytesToHex) });
            }
          }
          return {
            backend: core.backend(),
            outputs,
            batch: [7, 8, 9, 15].map((n) => core.hashMany(inputs.slice(0, n)).length),
          };
        },
        { backend, lengths: LENGTHS, modes: MODES, dkLens: DKLENS, keyHex: KEY_HEX, context: CONTEXT },
      );
      expect(result.backend).toBe(backend);
      expect(result.batch).toEqual([7, 8, 9, 15]);
      expect(result.outputs).toHaveLength(MODES.length * DKLENS.length);
      for (const { mode, dkLen, wrong, digests } of result.outputs) {
        expect(wrong, `${mode} dkLen=${dkLen}: messages whose hashMany digest differs from blake3()`).toEqual([]);
        const opts = {
          dkLen,
          ...(mode === 'keyed_hash'
            ? { key: Uint8Array.from(Buffer.from(KEY_HEX, 'hex')) }
            : mode === 'derive_key'
              ? { context: CONTEXT }
              : {}),
        };
        const expected = LENGTHS.map((len, n) => [len, n])
          .filter((_, i) => i % 97 === 0)
          .map(([len, n]) => bytesToHex(blake3(message(len, n), opts)));
        expect(digests, `${mode} dkLen=${dkLen}: page digests against Node`).toEqual(expected);
      }
    });
  });
}
