// hashMany in every engine and backend: the built package's batch path against per-message
// blake3() in the page, and against the same messages hashed by Node in the test process.
import { blake3, bytesToHex } from '@blake3-web/core';
import { BACKENDS, openCorePageFor } from '../fixtures/backends.ts';
import { expect, test } from '../../servers/engine-test.ts';

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

    test('hashManyInto with out over its inputs: before, at, inside, after and across them, 32- and 131-byte digests', async ({
      enginePage,
    }) => {
      const result = await enginePage.evaluate((backend) => {
        const { core } = globalThis.blake3Web!;
        core.setBackend(backend);
        const shapes: [string, (s: number, e: number, n: number) => number][] = [
          ['before', (s, _e, n) => s - (n >> 1)],
          ['at the start', (s) => s],
          ['inside', (s, e, n) => s + ((e - s - n) >> 1)],
          ['after', (_s, e, n) => e - (n >> 1)],
          ['across', (s, e, n) => s - ((n - (e - s)) >> 1)],
        ];
        const wrong: string[] = [];
        const samples: string[] = [];
        for (const [dkLen, lengths] of [
          [32, Array.from({ length: 4096 }, (_, i) => (i % 500 === 3 ? 20_000 : 64))],
          [131, Array.from({ length: 300 }, (_, i) => (i * 37) % 3000)],
          [32, Array.from({ length: 600 }, () => 16)],
        ] as const) {
          for (const [name, outAt] of shapes) {
            const inLen = lengths.reduce((a, b) => a + b, 0);
            const outLen = lengths.length * dkLen;
            const margin = inLen + outLen;
            const buffer = new ArrayBuffer(inLen + 2 * margin);
            let at = margin;
            const inputs = lengths.map((len, n) => {
              const m = new Uint8Array(buffer, at, len);
              for (let i = 0; i < len; i++) m[i] = (i + n) % 251;
              at += len;
              return m;
            });
            const expected = inputs.map((x) => core.bytesToHex(core.blake3(x.slice(), { dkLen })));
            const out = new Uint8Array(buffer, outAt(margin, margin + inLen, outLen), outLen);
            core.hashManyInto(inputs, out, { dkLen });
            const bad = expected.filter((h, i) => core.bytesToHex(out.subarray(i * dkLen, (i + 1) * dkLen)) !== h);
            if (bad.length) wrong.push(`${lengths.length} messages, dkLen ${dkLen}, out ${name}: ${bad.length} wrong`);
            if (name === 'inside') samples.push(core.bytesToHex(out.subarray(3 * dkLen, 4 * dkLen)));
          }
        }
        return { backend: core.backend(), wrong, samples };
      }, backend);
      expect(result.backend).toBe(backend);
      expect(result.wrong).toEqual([]);
      // Message 3 of each batch, as Node hashes it.
      expect(result.samples).toEqual(
        [
          [20_000, 32],
          [111, 131],
          [16, 32],
        ].map(([len, dkLen]) => bytesToHex(blake3(message(len, 3), { dkLen }))),
      );
    });
  });
}
