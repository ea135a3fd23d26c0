import { blake3 } from '@blake3-web/core';
import { baoEncode } from '@blake3-web/stream';
import { proveOutboard, provesFinalLeaf } from '@blake3-web/stream/_internal';
import { Random, testSeed } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

const rng = new Random(testSeed());
const refuse = (why: string) => new Error(`the outboard ${why}`);

describe('proveOutboard', () => {
  it('proves every outboard baoEncode writes, and its final leaf proves the size to the byte', () => {
    for (let i = 0; i < 40; i++) {
      const len = rng.pick([0, 1, 1024, 1025, 2048, 16385, rng.int(0, 40_000), rng.int(0, 600_000)]);
      const chunkGroupLog = rng.pick([0, 0, 4]);
      const leafBytes = 1024 << chunkGroupLog;
      const data = rng.bytes(len);
      const { hash, encoded } = baoEncode(data, { outboard: true, chunkGroupLog });
      const tree = proveOutboard(encoded, hash, leafBytes, refuse);
      const message = `len ${len}, leaves of ${leafBytes}`;
      assert.equal(tree.size, len, message);
      assert.equal(tree.leaves, Math.max(1, Math.ceil(len / leafBytes)), message);
      const finalStart = (tree.leaves - 1) * leafBytes;
      const final = data.subarray(finalStart);
      assert.equal(provesFinalLeaf(tree, final), true, message);
      if (len > 0) {
        assert.equal(provesFinalLeaf(tree, final.subarray(0, final.length - 1)), false, message);
        const flipped = final.slice();
        flipped[flipped.length - 1] ^= 1;
        assert.equal(provesFinalLeaf(tree, flipped), false, message);
      }
    }
  });

  it('refuses a flipped parent, a wrong length, another content and another root, with a reason', () => {
    const data = rng.bytes(300_000);
    const { hash, encoded } = baoEncode(data, { outboard: true });
    // Every parent byte matters, whichever ranges would have touched it.
    for (let at = 8; at < encoded.length; at += 37) {
      const bad = encoded.slice();
      bad[at] ^= 0x80;
      assert.throws(() => proveOutboard(bad, hash, 1024, refuse), /^Error: the outboard /, `byte ${at}`);
    }
    assert.throws(
      () => proveOutboard(encoded.subarray(0, encoded.length - 64), hash, 1024, refuse),
      /needs \d+ outboard bytes/,
    );
    assert.throws(() => proveOutboard(encoded.subarray(0, 4), hash, 1024, refuse), /length header/);
    const other = baoEncode(rng.bytes(300_000), { outboard: true }).encoded;
    assert.throws(() => proveOutboard(other, hash, 1024, refuse), /does not prove the root/);
    assert.throws(() => proveOutboard(encoded, blake3(data.subarray(1)), 1024, refuse), /does not prove the root/);
    // Read with another leaf size, it describes another tree.
    assert.throws(() => proveOutboard(encoded, hash, 16384, refuse), /needs \d+ outboard bytes/);
    const empty = baoEncode(new Uint8Array(0), { outboard: true }).encoded;
    assert.throws(() => proveOutboard(empty, hash, 1024, refuse), /empty/);
  });
});
