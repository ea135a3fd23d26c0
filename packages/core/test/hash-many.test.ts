import { blake3, hashMany, hashManyInto, type Blake3Opts } from '@blake3-web/core';
import { Random, testSeed } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forEachBackend } from './_backends.ts';

const modes: Blake3Opts[] = [{}, { key: new Uint8Array(32).fill(42) }, { context: 'blake3-web hashMany test' }];

forEachBackend('hashMany', () => {
  it('an empty batch and a single message', () => {
    assert.deepEqual(hashMany([]), []);
    assert.deepEqual(hashMany(['abc']), [blake3('abc')]);
  });

  it('every length 0..2049 equals blake3(), in every mode', () => {
    const rng = new Random(testSeed());
    const inputs = Array.from({ length: 2050 }, (_, n) => rng.bytes(n));
    for (const opts of modes) {
      const got = hashMany(inputs, opts);
      assert.equal(got.length, inputs.length);
      for (let n = 0; n < inputs.length; n++)
        assert.deepEqual(got[n], blake3(inputs[n], opts), `length ${n}, mode ${Object.keys(opts)}`);
    }
  });

  it('random mixes of lengths up to 64 KiB, with dkLen 0, 1, 32 and 131, as arrays and contiguously', () => {
    const rng = new Random(testSeed() + 1);
    for (const dkLen of [0, 1, 32, 131]) {
      const inputs = Array.from({ length: 300 }, () =>
        rng.bytes(rng.pick([rng.int(0, 64), rng.int(0, 4096), rng.int(0, 65536)])),
      );
      const opts = { ...modes[dkLen % 3], dkLen };
      const expected = inputs.map((x) => blake3(x, opts));
      assert.deepEqual(hashMany(inputs, opts), expected);
      const out = new Uint8Array(inputs.length * dkLen);
      hashManyInto(inputs, out, opts);
      for (let i = 0; i < inputs.length; i++) assert.deepEqual(out.subarray(i * dkLen, (i + 1) * dkLen), expected[i]);
    }
  });

  it('digests are views of one ArrayBuffer per call, in order and without overlap', () => {
    const inputs = Array.from({ length: 70 }, (_, i) => new Uint8Array(i * 37).fill(i));
    for (const dkLen of [1, 32, 64, 65]) {
      const got = hashMany(inputs, { dkLen });
      const { buffer } = got[0];
      assert.equal(buffer.byteLength, inputs.length * dkLen, `dkLen ${dkLen}`);
      for (let i = 0; i < inputs.length; i++) {
        assert.equal(got[i].buffer, buffer, `digest ${i}, dkLen ${dkLen}`);
        assert.equal(got[i].byteOffset, i * dkLen, `digest ${i}, dkLen ${dkLen}`);
        assert.equal(got[i].length, dkLen, `digest ${i}, dkLen ${dkLen}`);
      }
      // Writing into one digest leaves its neighbours as they were.
      got[1].fill(0);
      assert.deepEqual(got[0], blake3(inputs[0], { dkLen }));
      assert.deepEqual(got[2], blake3(inputs[2], { dkLen }));
      assert.notEqual(hashMany(inputs, { dkLen })[0].buffer, buffer, 'a fresh buffer per call');
    }
  });

  it('rejects bad batches before hashing anything', () => {
    assert.throws(() => hashMany('abc' as never), { name: 'TypeError', message: /inputs must be an array/ });
    assert.throws(() => hashMany([new Uint8Array(1), 5 as never]), { name: 'TypeError', message: /inputs\[1\]/ });
    const out = new Uint8Array(64).fill(7);
    assert.throws(() => hashManyInto(['a', 'b'], new Uint8Array(63)), {
      name: 'RangeError',
      message: /out must be 64 bytes/,
    });
    assert.throws(() => hashManyInto(['a', null as never], out), { name: 'TypeError', message: /inputs\[1\]/ });
    assert.deepEqual(out, new Uint8Array(64).fill(7));
    // 2^20 digests of 2^30 bytes: no engine makes a 1 PiB buffer, and the error says which arguments.
    assert.throws(() => hashMany(new Array(2 ** 20).fill(new Uint8Array(0)), { dkLen: 2 ** 30 }), {
      name: 'RangeError',
      message: /^inputs.length × dkLen must fit in one ArrayBuffer, got 1048576 × 1073741824 bytes$/,
    });
  });
});
