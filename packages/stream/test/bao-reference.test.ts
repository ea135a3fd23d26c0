// Byte-for-byte compatibility with the reference Bao implementation (bao 0.13), through the
// fixtures that scripts/generate-bao-fixtures.mjs recorded from its CLI, and live against the
// CLI itself, pinned and installed by the bootstrap.
import { bytesToHex } from '@blake3-web/core';
import {
  baoCombine,
  baoDecode,
  baoDecodeSlice,
  baoEncode,
  baoEncodedSize,
  BaoEncoder,
  baoOutboardSize,
  baoSlice,
  BaoVerifyStream,
} from '@blake3-web/stream';
import { Random, testSeed } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
// @ts-expect-error: plain .mjs shared with the bootstrap
import { BAO_VERSION, baoInstall, baoIsPinned, baoPath } from '../setup/bao-setup.mjs';
import { chunked, consume, paint, reference, stored, storedBytes } from './fixtures/bao-helpers.ts';

const rng = new Random(testSeed());

describe('Bao reference fixtures', () => {
  it(`cover the sizes the format's edges need (${reference.reference})`, () => {
    const sizes = reference.cases.map((c) => c.len);
    for (const len of [0, 1, 1023, 1024, 1025, 2048, 2049, 65536, 1000007])
      assert.ok(sizes.includes(len), `size ${len} missing`);
    assert.ok(sizes.length >= 12, 'a few random sizes too');
    assert.match(reference.reference, /^bao 0\.13\./);
  });

  for (const ref of reference.cases) {
    const data = paint(ref.len);
    it(`${ref.len} bytes: baoEncode gives bao encode, bao encode --outboard and bao hash`, () => {
      const { hash, encoded } = baoEncode(data);
      assert.equal(bytesToHex(hash), ref.hash);
      assert.deepEqual(stored(encoded, ref.encoded), ref.encoded);
      const outboard = baoEncode(data, { outboard: true });
      assert.equal(bytesToHex(outboard.hash), ref.hash);
      assert.deepEqual(stored(outboard.encoded, ref.outboard), ref.outboard);
      assert.equal(baoEncodedSize(ref.len), encoded.length);
      assert.equal(baoOutboardSize(ref.len), outboard.encoded.length);
    });

    it(`${ref.len} bytes: BaoEncoder fed in random pieces gives the reference outboard, baoCombine the combined encoding`, async () => {
      const encoder = new BaoEncoder();
      for (let i = 0; i < ref.len;) {
        const n = rng.pick([0, 1, 1023, 1024, 1025, rng.int(0, 70_000)]);
        encoder.update(data.subarray(i, i + n));
        i += n;
      }
      const { hash, outboard } = encoder.finalize();
      assert.equal(bytesToHex(hash), ref.hash);
      assert.deepEqual(stored(outboard, ref.outboard), ref.outboard);
      const combined = await consume(baoCombine(chunked(rng, data, 5000), outboard));
      assert.equal(combined.error, null);
      assert.deepEqual(stored(combined.released, ref.encoded), ref.encoded);
    });

    it(`${ref.len} bytes: baoSlice gives bao slice from the combined and the outboard encoding; baoDecodeSlice reads it`, () => {
      const { hash, encoded } = baoEncode(data);
      const outboard = baoEncode(data, { outboard: true }).encoded;
      for (const { start, count, slice } of ref.slices) {
        const what = `slice ${start} ${count}`;
        const mine = baoSlice(encoded, start, count);
        assert.deepEqual(stored(mine, slice), slice, what);
        assert.deepEqual(baoSlice({ data, outboard }, start, count), mine, what);
        // What `bao decode-slice` printed when the fixtures were made: the range, capped at the end.
        const want = data.subarray(Math.min(start, ref.len), Math.min(ref.len, start + count));
        assert.deepEqual(baoDecodeSlice(storedBytes(slice) ?? mine, hash, start, count), want, what);
      }
    });

    it(`${ref.len} bytes: the reference encodings decode, in memory and streamed in random pieces`, async () => {
      // Small encodings are the reference's own bytes; larger ones are ours, proven equal above.
      const encoded = storedBytes(ref.encoded) ?? baoEncode(data).encoded;
      const outboard = storedBytes(ref.outboard) ?? baoEncode(data, { outboard: true }).encoded;
      assert.deepEqual(baoDecode(encoded, ref.hash), data);
      assert.deepEqual(baoDecode(data, ref.hash, { outboard }), data);
      // One-byte pieces cost a few microseconds each in any TransformStream: only for small sizes.
      const maxPiece = rng.pick(ref.len < 70_000 ? [1, 100, 4096, 70_000] : [100, 4096, 70_000]);
      const streamed = await consume(chunked(rng, encoded, maxPiece).pipeThrough(new BaoVerifyStream(ref.hash)));
      assert.equal(streamed.error, null);
      assert.deepEqual(streamed.released, data);
    });
  }
});

describe('Bao against the reference CLI, live', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bao-live-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it(`runs bao ${BAO_VERSION}`, () => {
    assert.ok(
      baoIsPinned(),
      `bao ${BAO_VERSION} is not installed: run node scripts/bootstrap.mjs --test (${baoInstall})`,
    );
  });
  const file = (name: string, bytes?: Uint8Array) => {
    const path = join(dir, name);
    if (bytes) writeFileSync(path, bytes);
    return path;
  };
  const run = (...args: string[]) => new Uint8Array(execFileSync(baoPath, args, { maxBuffer: 1 << 30 }));
  const sizes = [0, 1, 1024, 1025, 4096, 4097, 1 << 16, 1 << 20, 3 << 20].concat(
    Array.from({ length: 6 }, () => rng.int(0, 400_000)),
  );

  it('bao decode accepts what baoEncode writes (combined and outboard), and bao decode-slice our slices', () => {
    for (const len of sizes) {
      const data = rng.bytes(len);
      const { hash, encoded } = baoEncode(data);
      const outboard = baoEncode(data, { outboard: true }).encoded;
      const hex = bytesToHex(hash);
      assert.equal(new TextDecoder().decode(run('hash', file('in', data))).split(/\s+/)[0], hex, `hash of ${len}`);
      assert.deepEqual(run('decode', hex, file('enc', encoded)), data, `decode ${len}`);
      assert.deepEqual(
        run('decode', hex, file('in', data), `--outboard=${file('ob', outboard)}`),
        data,
        `decode --outboard ${len}`,
      );
      for (let k = 0; k < 4; k++) {
        const start = rng.pick([0, rng.int(0, len + 10), len]);
        const count = rng.pick([0, 1, rng.int(0, 100_000)]);
        const slice = baoSlice(encoded, start, count);
        assert.deepEqual(
          run('slice', String(start), String(count), file('enc')),
          slice,
          `slice ${start} ${count} of ${len}`,
        );
        assert.deepEqual(
          run('decode-slice', hex, String(start), String(count), file('sl', slice)),
          baoDecodeSlice(slice, hash, start, count),
        );
      }
    }
  });

  it('BaoVerifyStream accepts what bao encode writes, and rejects it under another hash', async () => {
    for (const len of sizes) {
      const data = rng.bytes(len);
      file('in', data);
      run('encode', file('in'), file('enc'));
      run('encode', file('in'), `--outboard=${file('ob')}`);
      const hash = new TextDecoder().decode(run('hash', file('in'))).split(/\s+/)[0];
      const encoded = new Uint8Array(readFileSync(file('enc')));
      const outboard = new Uint8Array(readFileSync(file('ob')));
      const combined = await consume(chunked(rng, encoded, 9000).pipeThrough(new BaoVerifyStream(hash)));
      assert.equal(combined.error, null, `combined ${len}`);
      assert.deepEqual(combined.released, data);
      const split = await consume(
        chunked(rng, data, 9000).pipeThrough(new BaoVerifyStream(hash, { outboard: chunked(rng, outboard, 300) })),
      );
      assert.equal(split.error, null, `outboard ${len}`);
      assert.deepEqual(split.released, data);
      const other = bytesToHex(baoEncode(rng.bytes(3)).hash);
      const wrong = await consume(chunked(rng, encoded, 9000).pipeThrough(new BaoVerifyStream(other)));
      assert.equal(wrong.error?.name, 'IntegrityError');
      assert.equal(wrong.released.length, 0);
    }
  });
});
