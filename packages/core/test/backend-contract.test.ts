// The backend contract on both backends: ManyJobs against blake3() and the hazmat merges (chunk
// jobs as roots and as subtrees, parents, a node moved up a level, parents read from input,
// 64-byte outputs), and the contract module as a leaf.
import { blake3 } from '@blake3-web/core';
import { mergeSubtreesNonRoot } from '@blake3-web/core/hazmat';
import { Random, testSeed } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { IV, KEYED_HASH } from '../src/_constants.ts';
import { jsManyJobs } from '../src/_js-many.ts';
import type { ManyJobs } from '../src/_kernels.ts';
import { simdSupported } from '../src/wasm/_detect.ts';
import { manyModule } from '../src/wasm/_generator.ts';
import { wasmManyJobs } from '../src/wasm/_many.ts';

const seed = testSeed() ^ 0xc0de;
const rng = new Random(seed);
const KEY = rng.bytes(32);
const MODES = [
  { name: 'hash', key: Uint32Array.from(IV), flags: 0, opts: {} },
  { name: 'keyed', key: new Uint32Array(KEY.slice().buffer), flags: KEYED_HASH, opts: { key: KEY } },
];

const implementations: [string, () => ManyJobs][] = [['js', jsManyJobs]];
if (simdSupported())
  implementations.push([
    'wasm-simd',
    () => wasmManyJobs(new WebAssembly.Instance(new WebAssembly.Module(manyModule()))),
  ]);

const padded = (len: number) => (len === 0 ? 64 : (len + 63) & -64);

for (const [name, make] of implementations) {
  describe(`ManyJobs [${name}] (seed ${seed})`, () => {
    it('limits fit the largest message a piece takes (16 chunks: 16 KiB, 16 jobs, 48 slots)', () => {
      const k = make();
      assert.ok(k.inputLen >= 16 * 1024 && k.maxJobs >= 16 && k.cvSlots >= 48 && k.maxMessages >= 4, JSON.stringify(k));
    });

    it('single-chunk roots, 32 and 64 bytes, every mode', () => {
      const k = make();
      for (const mode of MODES) {
        for (const wide of [false, true]) {
          const lens = [0, 1, 63, 64, 65, 1023, 1024, rng.int(0, 1024)];
          const msgs = lens.map((n) => rng.bytes(n));
          k.start(mode.key, mode.flags, wide);
          let at = 0;
          msgs.forEach((m, i) => {
            k.input(m, at, padded(m.length));
            k.chunk(at, m.length, 0, true, i);
            at += padded(m.length);
          });
          k.run();
          const dkLen = wide ? 64 : 32;
          msgs.forEach((m, i) => {
            const expected = blake3(m, { ...mode.opts, dkLen });
            assert.deepEqual(k.output(i, dkLen), expected, `${mode.name} len ${m.length} dkLen ${dkLen}`);
            const into = new Uint8Array(dkLen + 3);
            k.outputInto(i, dkLen, into, 3);
            assert.deepEqual(into.subarray(3), expected);
          });
          if (!wide) {
            const all = new Uint8Array(32 * msgs.length);
            k.outputs(msgs.length, all, 0);
            msgs.forEach((m, i) => assert.deepEqual(all.subarray(32 * i, 32 * i + 32), blake3(m, mode.opts)));
          }
        }
      }
    });

    it('a 3-chunk tree: chunk subtrees, a node moved up a level, the root parent', () => {
      const k = make();
      const msg = rng.bytes(2 * 1024 + rng.int(1, 1024));
      for (const mode of MODES) {
        k.start(mode.key, mode.flags, true);
        k.input(msg, 0, padded(msg.length));
        for (let c = 0; c < 3; c++) k.chunk(1024 * c, Math.min(1024, msg.length - 1024 * c), c, false, c);
        k.run();
        k.parent(0, false, 3);
        k.moveCv(2, 4);
        k.run();
        k.parent(3, true, 5);
        k.run();
        assert.deepEqual(k.output(5, 64), blake3(msg, { ...mode.opts, dkLen: 64 }), mode.name);
      }
    });

    it('parents read from input give the non-root merge', () => {
      const k = make();
      const nodes = Array.from({ length: 9 }, () => rng.bytes(64));
      k.start(MODES[1].key, MODES[1].flags, false);
      nodes.forEach((n, i) => {
        k.input(n, 64 * i, 64);
        k.inputParent(64 * i, i);
      });
      k.run();
      nodes.forEach((n, i) =>
        assert.deepEqual(
          k.output(i, 32),
          mergeSubtreesNonRoot(n.subarray(0, 32), n.subarray(32), { key: KEY }),
          `node ${i}`,
        ),
      );
    });
  });
}

describe('the backend contract', () => {
  it('is a leaf: _kernels.ts imports nothing', () => {
    const source = readFileSync(new URL('../src/_kernels.ts', import.meta.url), 'utf8');
    assert.doesNotMatch(source, /^\s*(import|export [^;]* from)\b/m);
  });
});
