import {
  baoDecodeSlice,
  baoEncode,
  baoOutboardSlice,
  baoSlice,
  baoSliceBounds,
  IntegrityError,
} from '@blake3-web/stream';
import { Random, testSeed } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

const rng = new Random(testSeed());

describe('Bao slices from an outboard and part of the content', () => {
  it('equal baoSlice over the whole content, built from just the bounds', () => {
    for (let i = 0; i < 80; i++) {
      const len = rng.pick([0, 1, 1024, 1025, 2049, rng.int(0, 50_000), rng.int(0, 1_500_000)]);
      const chunkGroupLog = rng.pick([0, 0, 2]);
      const data = rng.bytes(len);
      const { hash, encoded: outboard } = baoEncode(data, { outboard: true, chunkGroupLog });
      const start = rng.pick([0, len, len + 3, rng.int(0, len), rng.int(0, len) & ~1023]);
      const count = rng.pick([0, 1, 1024, rng.int(0, 70_000), len]);
      const bounds = baoSliceBounds(len, start, count, { chunkGroupLog });
      const leaf = 1024 << chunkGroupLog;
      assert.equal(bounds.start % leaf, 0);
      assert.ok(bounds.end === len || bounds.end % leaf === 0);
      const piece = data.slice(bounds.start, bounds.end);
      const slice = baoOutboardSlice(outboard, piece, bounds.start, start, count, { chunkGroupLog });
      const message = `len ${len} start ${start} count ${count} g ${chunkGroupLog}`;
      assert.deepEqual(slice, baoSlice({ data, outboard }, start, count, { chunkGroupLog }), message);
      assert.deepEqual(
        baoDecodeSlice(slice, hash, start, count, { chunkGroupLog }),
        data.subarray(Math.min(start, len), Math.min(len, start + count)),
        message,
      );
      // Content starting earlier and ending later than needed is fine too.
      const from = Math.max(0, bounds.start - 5);
      assert.deepEqual(
        baoOutboardSlice(outboard, data.subarray(from, Math.min(len, bounds.end + 7)), from, start, count, {
          chunkGroupLog,
        }),
        slice,
        message,
      );
    }
  });

  it('bounds widen to whole leaves and follow the slice rules', () => {
    assert.deepEqual(baoSliceBounds(10_000, 1500, 100), { start: 1024, end: 2048 });
    assert.deepEqual(baoSliceBounds(10_000, 1023, 2), { start: 0, end: 2048 });
    assert.deepEqual(baoSliceBounds(10_000, 9999, 50), { start: 9216, end: 10_000 });
    assert.deepEqual(baoSliceBounds(10_000, 20_000, 1), { start: 9216, end: 10_000 });
    assert.deepEqual(baoSliceBounds(10_000, 4096, 0), { start: 4096, end: 5120 });
    assert.deepEqual(baoSliceBounds(0, 0, 10), { start: 0, end: 0 });
    assert.deepEqual(baoSliceBounds(100_000, 20_000, 1, { chunkGroupLog: 4 }), { start: 16_384, end: 32_768 });
  });

  it('a flipped content byte or parent inside the range fails to verify', () => {
    const data = rng.bytes(300_000);
    const { hash, encoded: outboard } = baoEncode(data, { outboard: true });
    const bounds = baoSliceBounds(data.length, 150_000, 5000);
    const piece = data.slice(bounds.start, bounds.end);
    piece[150_001 - bounds.start] ^= 1;
    assert.throws(
      () => baoDecodeSlice(baoOutboardSlice(outboard, piece, bounds.start, 150_000, 5000), hash, 150_000, 5000),
      IntegrityError,
    );
    const badOutboard = outboard.slice();
    badOutboard[8 + 10] ^= 1; // in the root parent
    const good = data.subarray(bounds.start, bounds.end);
    assert.throws(
      () => baoDecodeSlice(baoOutboardSlice(badOutboard, good, bounds.start, 150_000, 5000), hash, 150_000, 5000),
      IntegrityError,
    );
  });

  it('rejects content that does not cover the slice, and malformed outboards', () => {
    const data = rng.bytes(10_000);
    const { encoded: outboard } = baoEncode(data, { outboard: true });
    assert.throws(() => baoOutboardSlice(outboard, data.subarray(2048, 3000), 2048, 2100, 100), {
      name: 'RangeError',
      message: /content must cover bytes 2048 to 3072.*2048 to 3000/,
    });
    assert.throws(() => baoOutboardSlice(outboard, data.subarray(2049, 4000), 2049, 2100, 100), {
      name: 'RangeError',
      message: /content must cover/,
    });
    assert.throws(() => baoOutboardSlice(outboard.subarray(0, 70), data, 0, 0, 1), {
      name: 'RangeError',
      message: /needs an outboard of/,
    });
    assert.throws(() => baoOutboardSlice(outboard.subarray(0, 4), data, 0, 0, 1), {
      name: 'RangeError',
      message: /length header/,
    });
    assert.throws(() => baoOutboardSlice([] as never, data, 0, 0, 1), {
      name: 'TypeError',
      message: /outboard must be a Uint8Array/,
    });
    assert.throws(() => baoOutboardSlice(outboard, data, -1, 0, 1), { name: 'RangeError', message: /contentStart/ });
    assert.throws(() => baoSliceBounds(10, 1.5, 1), { name: 'RangeError', message: /start/ });
  });
});
