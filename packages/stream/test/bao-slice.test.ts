import { blake3, bytesToHex } from '@blake3-web/core';
import { baoDecodeSlice, baoEncode, baoSlice, IntegrityError } from '@blake3-web/stream';
import { Random, testSeed } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { layout, paint } from './fixtures/bao-helpers.ts';

const rng = new Random(testSeed());

/** The nodes a slice holds, from the model: every node whose content meets the wanted range. */
function expectedSliceSize(len: number, start: number, count: number, leafBytes = 1024): number {
  if (len === 0) return 8;
  const from = start >= len ? len - 1 : start;
  const to = start >= len ? len : Math.min(len, start + Math.max(count, 1));
  return layout(len, { leafBytes })
    .filter((r) => r.kind === 'header' || (r.contentStart < to && r.contentStart + r.contentLen > from))
    .reduce((n, r) => n + (r.end - r.at), 0);
}

describe('Bao slices', () => {
  it('random ranges: the slice has exactly the nodes on the way, and decodes to the range', () => {
    for (let i = 0; i < 60; i++) {
      const len = rng.pick([0, 1, 1024, 1025, 4096, rng.int(0, 50_000), rng.int(0, 2_000_000)]);
      const data = rng.bytes(len);
      const { hash, encoded } = baoEncode(data);
      const outboard = baoEncode(data, { outboard: true }).encoded;
      const start = rng.pick([0, len, len + 5, rng.int(0, len), rng.int(0, len) & ~1023]);
      const count = rng.pick([0, 1, 1024, rng.int(0, 100_000), len]);
      const slice = baoSlice(encoded, start, count);
      assert.equal(slice.length, expectedSliceSize(len, start, count), `len ${len} start ${start} count ${count}`);
      assert.deepEqual(baoSlice({ data, outboard }, start, count), slice);
      const got = baoDecodeSlice(slice, rng.pick([hash, bytesToHex(hash)]), start, count);
      assert.deepEqual(got, data.subarray(Math.min(start, len), Math.min(len, start + count)));
    }
  });

  it('a slice of everything is the combined encoding', () => {
    for (const len of [0, 1, 5000, 100_000]) {
      const { encoded } = baoEncode(paint(len));
      assert.deepEqual(baoSlice(encoded, 0, len), encoded);
    }
  });

  it('proves a range of a large file with a small slice', () => {
    const data = paint(8 << 20);
    const { hash, encoded } = baoEncode(data);
    const slice = baoSlice(encoded, 5 << 20, 65536);
    // 64 KiB of content, the header, and the parents on the way down: a tree of 2^13 chunks has 7
    // levels above an aligned subtree of 2^6 chunks, which holds 63 parents itself.
    assert.equal(slice.length, 8 + 65536 + 64 * (7 + 63));
    assert.deepEqual(baoDecodeSlice(slice, hash, 5 << 20, 65536), data.subarray(5 << 20, (5 << 20) + 65536));
  });

  it('a flipped bit anywhere in a slice, a short slice and a long slice fail with IntegrityError', () => {
    const data = paint(300_000);
    const { hash, encoded } = baoEncode(data);
    const slice = baoSlice(encoded, 100_000, 20_000);
    for (let k = 0; k < 40; k++) {
      const bad = slice.slice();
      const byte = rng.int(8, slice.length - 1);
      bad[byte] ^= 1 << rng.int(0, 7);
      assert.throws(() => baoDecodeSlice(bad, hash, 100_000, 20_000), IntegrityError, `bit in byte ${byte}`);
    }
    assert.throws(() => baoDecodeSlice(slice.subarray(0, slice.length - 1), hash, 100_000, 20_000), {
      name: 'IntegrityError',
      message: /ended early/,
    });
    assert.throws(() => baoDecodeSlice(new Uint8Array([...slice, 0]), hash, 100_000, 20_000), {
      name: 'IntegrityError',
      message: /after the end/,
    });
    assert.throws(() => baoDecodeSlice(slice, blake3('other'), 100_000, 20_000), IntegrityError);
    // A slice for one range does not verify another.
    assert.throws(() => baoDecodeSlice(slice, hash, 200_000, 20_000), IntegrityError);
  });

  it('the length header: unchecked by a slice that ends before the end, checked by one that reaches it', () => {
    const data = paint(300_000);
    const { hash, encoded } = baoEncode(data);
    // Bao spec, "Decoder": the length is validated when and only when the final chunk is. A
    // slice away from the end neither reads nor exposes it, so a low header bit goes unnoticed
    // and the bytes returned are still the content's.
    const early = baoSlice(encoded, 100_000, 20_000);
    early[0] ^= 1;
    assert.deepEqual(baoDecodeSlice(early, hash, 100_000, 20_000), data.subarray(100_000, 120_000));
    const end = baoSlice(encoded, 290_000, 20_000);
    assert.deepEqual(baoDecodeSlice(end, hash, 290_000, 20_000), data.subarray(290_000));
    for (let bit = 0; bit < 64; bit++) {
      const bad = end.slice();
      bad[bit >> 3] ^= 1 << (bit & 7);
      assert.throws(() => baoDecodeSlice(bad, hash, 290_000, 20_000), IntegrityError, `header bit ${bit}`);
    }
  });

  it('a slice past the end holds the final chunk, so a shortened length header is caught', () => {
    const data = paint(10_000);
    const { hash, encoded } = baoEncode(data);
    const slice = baoSlice(encoded, 20_000, 10);
    assert.equal(slice.length, expectedSliceSize(10_000, 20_000, 10));
    assert.deepEqual(baoDecodeSlice(slice, hash, 20_000, 10), new Uint8Array(0));
    const lying = slice.slice();
    lying[0] -= 1;
    assert.throws(() => baoDecodeSlice(lying, hash, 20_000, 10), IntegrityError);
  });

  it('chunk groups: slices of group encodings round trip with the same option', () => {
    for (const chunkGroupLog of [2, 4]) {
      const data = paint(200_000);
      const { hash, encoded } = baoEncode(data, { chunkGroupLog });
      const outboard = baoEncode(data, { chunkGroupLog, outboard: true }).encoded;
      for (let k = 0; k < 10; k++) {
        const start = rng.int(0, 210_000);
        const count = rng.int(0, 50_000);
        const slice = baoSlice(encoded, start, count, { chunkGroupLog });
        assert.equal(slice.length, expectedSliceSize(200_000, start, count, 1024 << chunkGroupLog));
        assert.deepEqual(baoSlice({ data, outboard }, start, count, { chunkGroupLog }), slice);
        assert.deepEqual(
          baoDecodeSlice(slice, hash, start, count, { chunkGroupLog }),
          data.subarray(Math.min(start, 200_000), Math.min(200_000, start + count)),
        );
      }
    }
  });

  it('validates its arguments', () => {
    const { hash, encoded } = baoEncode(paint(5000));
    assert.throws(() => baoSlice(encoded, -1, 5), {
      name: 'RangeError',
      message: /start must be a non-negative safe integer, got -1/,
    });
    assert.throws(() => baoSlice(encoded, 0, 1.5), { name: 'RangeError', message: /count/ });
    assert.throws(() => baoSlice('x' as never, 0, 5), { name: 'TypeError', message: /source must be a Uint8Array/ });
    assert.throws(() => baoSlice(encoded.subarray(0, 100), 0, 5), {
      name: 'RangeError',
      message: /length header says 5000 content bytes/,
    });
    assert.throws(
      () => baoSlice({ data: paint(4999), outboard: baoEncode(paint(5000), { outboard: true }).encoded }, 0, 5),
      { name: 'RangeError' },
    );
    assert.throws(() => baoDecodeSlice(encoded, new Uint8Array(16), 0, 5), {
      name: 'RangeError',
      message: /hash must be 32 bytes/,
    });
    assert.throws(() => baoDecodeSlice(encoded, hash, 0, '5' as never), {
      name: 'TypeError',
      message: /count must be a number/,
    });
  });
});
