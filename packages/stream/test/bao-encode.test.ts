import { blake3, bytesToHex } from '@blake3-web/core';
import { hashSubtree, mergeSubtreesNonRoot, mergeSubtreesRoot } from '@blake3-web/core/hazmat';
import {
  baoCombine,
  baoDecode,
  baoEncode,
  baoEncodedSize,
  baoEncodeInto,
  BaoEncoder,
  baoOutboardSize,
  IntegrityError,
} from '@blake3-web/stream';
import { Random, testSeed } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chunked, consume, layout, paint, reference, stored } from './fixtures/bao-helpers.ts';

const rng = new Random(testSeed());

describe('baoEncode', () => {
  it('the 2049-byte example of the spec: header, root parent, left parent, three chunks', () => {
    const data = new Uint8Array(2049);
    const { hash, encoded } = baoEncode(data);
    assert.equal(Buffer.from(encoded.subarray(0, 8)).toString('hex'), '0108000000000000');
    const c0 = hashSubtree(data.subarray(0, 1024), 0);
    const c1 = hashSubtree(data.subarray(1024, 2048), 1024);
    const c2 = hashSubtree(data.subarray(2048), 2048);
    const left = mergeSubtreesNonRoot(c0, c1);
    assert.deepEqual(encoded.subarray(8, 72), new Uint8Array([...left, ...c2]));
    assert.deepEqual(encoded.subarray(72, 136), new Uint8Array([...c0, ...c1]));
    assert.deepEqual(encoded.subarray(136), data);
    assert.deepEqual(hash, mergeSubtreesRoot(left, c2));
    assert.deepEqual(hash, blake3(data));
    // The spec shows the first bytes of the root parent node: a04fc7...
    assert.equal(Buffer.from(encoded.subarray(8, 11)).toString('hex'), 'a04fc7');
  });

  it('chunk groups: leaves of 2^g chunks hashed as subtrees, parents above them only, same hash', () => {
    for (const chunkGroupLog of [0, 1, 3, 4]) {
      const leafBytes = 1024 << chunkGroupLog;
      for (const len of [0, 1, leafBytes, leafBytes + 1, 5 * leafBytes + 7, rng.int(0, 400_000)]) {
        const data = rng.bytes(len);
        const { hash, encoded } = baoEncode(data, { chunkGroupLog });
        const outboard = baoEncode(data, { chunkGroupLog, outboard: true }).encoded;
        assert.deepEqual(hash, blake3(data));
        const regions = layout(len, { leafBytes });
        assert.equal(encoded.length, regions.at(-1)!.end);
        assert.equal(encoded.length, baoEncodedSize(len, { chunkGroupLog }));
        assert.equal(outboard.length, baoOutboardSize(len, { chunkGroupLog }));
        assert.equal(outboard.length, 8 + 64 * (Math.max(1, Math.ceil(len / leafBytes)) - 1));
        // Each leaf is the content at its place; the parent above it holds hashSubtree of it.
        for (const r of regions.filter((x) => x.kind === 'leaf'))
          assert.deepEqual(encoded.subarray(r.at, r.end), data.subarray(r.contentStart, r.contentStart + r.contentLen));
        const lastParent = regions.filter((x) => x.kind === 'parent').at(-1);
        if (lastParent) {
          const right = lastParent.contentStart + Math.floor((lastParent.contentLen - 1) / leafBytes) * leafBytes;
          const want = hashSubtree(data.subarray(right, lastParent.contentStart + lastParent.contentLen), right);
          assert.deepEqual(encoded.subarray(lastParent.at + 32, lastParent.end), want);
        }
        assert.deepEqual(baoDecode(encoded, hash, { chunkGroupLog }), data);
        assert.deepEqual(baoDecode(data, hash, { chunkGroupLog, outboard }), data);
      }
    }
  });

  it('chunkGroupLog 4 makes the outboard 16 times smaller', () => {
    // n leaves have n - 1 parents of 64 bytes, after the 8-byte header.
    const leaves = (outboardSize: number) => (outboardSize - 8) / 64 + 1;
    const len = 64 << 20;
    assert.equal(leaves(baoOutboardSize(len)), 65536);
    assert.equal(leaves(baoOutboardSize(len, { chunkGroupLog: 4 })), 4096);
  });

  it('validates its arguments', () => {
    assert.throws(() => baoEncode('text' as never), {
      name: 'TypeError',
      message: /data must be a Uint8Array, got a string/,
    });
    assert.throws(() => baoEncode(new Uint8Array(1), { chunkGroupLog: 17 }), {
      name: 'RangeError',
      message: /opts.chunkGroupLog must be an integer from 0 to 16, got 17/,
    });
    assert.throws(() => baoEncode(new Uint8Array(1), { outboard: 1 as never }), {
      name: 'TypeError',
      message: /opts.outboard must be a boolean/,
    });
    assert.throws(() => baoEncodedSize(5, null as never), { name: 'TypeError', message: /opts must be an object/ });
  });
});

describe('BaoEncoder', () => {
  it('pieces of any size give the outboard of baoEncode, with and without chunk groups', () => {
    for (let i = 0; i < 40; i++) {
      const chunkGroupLog = rng.pick([0, 0, 2, 4]);
      const leafBytes = 1024 << chunkGroupLog;
      const len = rng.pick([0, 1, leafBytes - 1, leafBytes, leafBytes + 1, 2 * leafBytes, rng.int(0, 300_000)]);
      const data = rng.bytes(len);
      const encoder = new BaoEncoder({ chunkGroupLog });
      for (let p = 0; p < len;) {
        const n = rng.pick([0, 1, leafBytes, leafBytes + 1, rng.int(0, 3 * leafBytes)]);
        encoder.update(data.subarray(p, p + n));
        p += n;
      }
      assert.equal(encoder.length, len);
      const { hash, outboard } = encoder.finalize();
      const want = baoEncode(data, { chunkGroupLog, outboard: true });
      assert.deepEqual(hash, want.hash, `length ${len}, group ${chunkGroupLog}`);
      assert.deepEqual(outboard, want.encoded, `length ${len}, group ${chunkGroupLog}`);
    }
  });

  it('cannot be used after finalize', () => {
    const encoder = new BaoEncoder().update(new Uint8Array(10));
    encoder.finalize();
    assert.throws(() => encoder.update(new Uint8Array(1)), { name: 'TypeError', message: /after finalize/ });
    assert.throws(() => encoder.finalize(), { name: 'TypeError', message: /twice/ });
    assert.throws(() => new BaoEncoder().update([1, 2] as never), {
      name: 'TypeError',
      message: /data must be a Uint8Array/,
    });
  });
});

describe('baoCombine', () => {
  it('interleaves streamed content with its outboard into the combined encoding', async () => {
    for (const chunkGroupLog of [0, 2]) {
      for (const len of [0, 1, 1024, 1025, 200_000]) {
        const data = rng.bytes(len);
        const want = baoEncode(data, { chunkGroupLog }).encoded;
        const outboard = baoEncode(data, { chunkGroupLog, outboard: true }).encoded;
        const got = await consume(
          baoCombine(chunked(rng, data, rng.pick([1, 1000, 100_000])), outboard, { chunkGroupLog }),
        );
        assert.equal(got.error, null);
        assert.deepEqual(got.released, want);
      }
    }
  });

  it('content of another length than the outboard says errors the stream with a RangeError', async () => {
    const data = paint(5000);
    const outboard = baoEncode(data, { outboard: true }).encoded;
    const short = await consume(baoCombine(chunked(rng, data.subarray(0, 4999), 700), outboard));
    assert.equal(short.error?.name, 'RangeError');
    assert.match(short.error!.message, /content ended after 4999 bytes; its outboard describes 5000/);
    const long = await consume(baoCombine(chunked(rng, paint(5001), 700), outboard));
    assert.equal(long.error?.name, 'RangeError');
    assert.throws(() => baoCombine(chunked(rng, data, 10), outboard.subarray(0, 70)), {
      name: 'RangeError',
      message: /outboard for 5000 content bytes has 264 bytes, got 70/,
    });
    assert.throws(() => baoCombine(data as never, outboard), {
      name: 'TypeError',
      message: /content must be a ReadableStream/,
    });
  });
});

describe('baoDecode', () => {
  it('returns the content of good encodings and throws IntegrityError on any change', () => {
    for (const len of [0, 1, 1025, 70_000]) {
      const data = rng.bytes(len);
      const { hash, encoded } = baoEncode(data);
      assert.deepEqual(baoDecode(encoded, hash), data);
      for (let k = 0; k < 10; k++) {
        const bad = encoded.slice();
        bad[rng.int(0, bad.length - 1)] ^= 1 << rng.int(0, 7);
        assert.throws(() => baoDecode(bad, hash), IntegrityError);
      }
      assert.throws(() => baoDecode(encoded.subarray(0, encoded.length - 1), hash), IntegrityError);
      assert.throws(() => baoDecode(new Uint8Array([...encoded, 1]), hash), {
        name: 'IntegrityError',
        message: /after the end of its Bao tree/,
      });
    }
  });
});

describe('baoEncodeInto', () => {
  it('writes the reference encodings into a reused, dirty buffer at any offset, and nothing past them', () => {
    const rng = new Random(testSeed());
    const buffer = new Uint8Array(4_000_000);
    for (const ref of reference.cases) {
      const data = paint(ref.len);
      for (const outboard of [false, true]) {
        const size = outboard ? baoOutboardSize(ref.len) : baoEncodedSize(ref.len);
        const at = rng.int(0, 100);
        buffer.fill(0x5a);
        const out = buffer.subarray(at, at + size + 10);
        const hash = baoEncodeInto(data, out, { outboard });
        assert.equal(bytesToHex(hash), ref.hash);
        assert.deepEqual(
          stored(out.subarray(0, size), outboard ? ref.outboard : ref.encoded),
          outboard ? ref.outboard : ref.encoded,
        );
        assert.ok(
          out.subarray(size).every((b) => b === 0x5a),
          'bytes past the encoding stay as they were',
        );
      }
    }
  });

  it('equals baoEncode for random lengths and chunk groups', () => {
    const rng = new Random(testSeed());
    for (let i = 0; i < 30; i++) {
      const data = rng.bytes(rng.pick([0, 1, 1024, 1025, rng.int(0, 70_000), rng.int(0, 1 << 20)]));
      const opts = { chunkGroupLog: rng.pick([0, 1, 4]), outboard: rng.int(0, 1) === 1 };
      const want = baoEncode(data, opts);
      const out = rng.bytes(want.encoded.length + rng.int(0, 3));
      assert.deepEqual(baoEncodeInto(data, out, opts), want.hash);
      assert.deepEqual(out.subarray(0, want.encoded.length), want.encoded);
    }
  });

  it('validates its arguments, naming them and what arrived', () => {
    const data = paint(5000);
    assert.throws(() => baoEncodeInto(data, [] as unknown as Uint8Array), {
      name: 'TypeError',
      message: /out must be a Uint8Array, got/,
    });
    assert.throws(() => baoEncodeInto('x' as unknown as Uint8Array, new Uint8Array(10)), {
      name: 'TypeError',
      message: /data must be a Uint8Array/,
    });
    assert.throws(() => baoEncodeInto(data, new Uint8Array(baoEncodedSize(5000) - 1)), {
      name: 'RangeError',
      message: `out must hold the ${baoEncodedSize(5000)} bytes of the combined encoding of 5000 bytes, got ${baoEncodedSize(5000) - 1}`,
    });
    assert.throws(() => baoEncodeInto(data, new Uint8Array(100), { outboard: true }), {
      name: 'RangeError',
      message: /outboard encoding of 5000 bytes, got 100/,
    });
    assert.throws(() => baoEncodeInto(data, new Uint8Array(1 << 20), { outboard: 1 as unknown as boolean }), TypeError);
    const shared = new Uint8Array(20_000);
    assert.throws(() => baoEncodeInto(shared.subarray(0, 5000), shared.subarray(4000)), {
      name: 'RangeError',
      message: /out must not overlap data/,
    });
    // Beside each other in one buffer is fine.
    const hash = baoEncodeInto(shared.subarray(0, 5000), shared.subarray(5000));
    assert.deepEqual(hash, baoEncode(new Uint8Array(5000)).hash);
  });
});
