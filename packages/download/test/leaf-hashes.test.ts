import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { BaoEncoder } from '@blake3-web/stream';
import { blake3 } from '@blake3-web/core';
import { paint } from '@blake3-web/testkit';
import { LeafHashes, OutboardMismatch } from '../src/_leaf-hashes.ts';

const outboardOf = (content: Uint8Array, chunkGroupLog: number) =>
  new BaoEncoder({ chunkGroupLog }).update(content).finalize();

describe('LeafHashes', () => {
  for (const [size, log] of [
    [0, 4],
    [1, 4],
    [16384, 4],
    [16385, 4],
    [5 * 16384 + 7, 4],
    [100_000, 0],
    [3 * 65536, 6],
  ] as const) {
    it(`proves every group of ${size} bytes in groups of ${1024 << log}, and no altered one`, () => {
      const content = paint(size);
      const { hash, outboard } = outboardOf(content, log);
      const leaves = LeafHashes.fromOutboard(outboard, hash, 1024 << log);
      assert.equal(leaves.size, size);
      assert.equal(leaves.verify(0, content), leaves.groups);
      for (let g = 0; g < leaves.groups; g++) {
        const { start, end } = leaves.groupBounds(g);
        assert.equal(leaves.verify(g, content.subarray(start, end)), 1);
        if (end > start) {
          const bad = content.slice(start, end);
          bad[(end - start) >> 1] ^= 0x10;
          assert.equal(leaves.verify(g, bad), 0, `group ${g} altered`);
          // Short by one byte: a final group of the wrong length never verifies.
          assert.equal(leaves.verify(g, content.subarray(start, end - 1)), 0, `group ${g} short`);
        }
      }
      if (leaves.groups > 2) {
        const { start } = leaves.groupBounds(2);
        const bad = content.slice();
        bad[start] ^= 1;
        assert.equal(leaves.verify(0, bad), 2);
      }
    });
  }

  it("refuses an outboard that is another content's, tampered, short or long", () => {
    const content = paint(200_000);
    const { hash, outboard } = outboardOf(content, 4);
    const other = outboardOf(paint(200_000, 7), 4).outboard;
    assert.throws(() => LeafHashes.fromOutboard(other, hash, 16384), OutboardMismatch);
    for (let at = 8; at < outboard.length; at += 29) {
      const bad = outboard.slice();
      bad[at] ^= 4;
      assert.throws(() => LeafHashes.fromOutboard(bad, hash, 16384), OutboardMismatch, `byte ${at}`);
    }
    assert.throws(
      () => LeafHashes.fromOutboard(outboard.subarray(0, outboard.length - 1), hash, 16384),
      OutboardMismatch,
    );
    const long = new Uint8Array(outboard.length + 64);
    long.set(outboard);
    assert.throws(() => LeafHashes.fromOutboard(long, hash, 16384), OutboardMismatch);
    assert.throws(() => LeafHashes.fromOutboard(outboard.subarray(0, 5), hash, 16384), OutboardMismatch);
    // Read with the wrong group size, it claims another tree.
    assert.throws(() => LeafHashes.fromOutboard(outboard, hash, 1024), OutboardMismatch);
    assert.equal(blake3(content).length, 32);
  });
});
