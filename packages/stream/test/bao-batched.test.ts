// The batched paths (leaves and parents hashed many at a time, subtrees gathered across writes)
// against an encoder built node by node from the core's hazmat, one call per node, and against
// the official implementation's hash: random lengths, chunk group sizes and write boundaries.
import { bytesToHex } from '@blake3-web/core';
import { hashSubtree, leftSubtreeLen, mergeSubtreesNonRoot, mergeSubtreesRoot } from '@blake3-web/core/hazmat';
import { baoEncode, BaoEncoder, BaoVerifyStream } from '@blake3-web/stream';
import { chunkedStream, oracle, Random, testSeed } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { consume } from './fixtures/bao-helpers.ts';

const rng = new Random(testSeed() ^ 0xba0b);

/** The encoding written one node at a time: the spec's pre-order, each value from its own call. */
function nodeByNode(
  data: Uint8Array,
  leafBytes: number,
  outboard: boolean,
  officialHex: string,
): { hash: Uint8Array; encoded: Uint8Array } {
  const out: Uint8Array[] = [new Uint8Array(8)];
  new DataView(out[0].buffer).setBigUint64(0, BigInt(data.length), true);
  const walk = (start: number, len: number, root: boolean): Uint8Array => {
    if (len <= leafBytes) {
      const leaf = data.subarray(start, start + len);
      if (!outboard) out.push(leaf);
      // A tree of one leaf: its root is the hash of the content, which only the oracle gives here.
      return root ? new Uint8Array(Buffer.from(officialHex, 'hex')) : hashSubtree(leaf, start);
    }
    const node = new Uint8Array(64);
    out.push(node);
    const left = leftSubtreeLen(len);
    node.set(walk(start, left, false), 0);
    node.set(walk(start + left, len - left, false), 32);
    return root
      ? mergeSubtreesRoot(node.subarray(0, 32), node.subarray(32))
      : mergeSubtreesNonRoot(node.subarray(0, 32), node.subarray(32));
  };
  const hash = walk(0, data.length, true);
  const encoded = new Uint8Array(out.reduce((n, b) => n + b.length, 0));
  let pos = 0;
  for (const b of out) encoded.set(b, (pos += b.length) - b.length);
  return { hash, encoded };
}

const cases = Array.from({ length: 40 }, (_, i) => {
  const g = [0, 0, 1, 2, 4, 7][i % 6];
  const leafBytes = 1024 << g;
  const len = rng.pick([0, 1, leafBytes, leafBytes + 1, 64 * 1024, rng.int(0, 8 * leafBytes), rng.int(0, 400_000)]);
  return { g, leafBytes, data: rng.bytes(len) };
});
const official = oracle(cases.map((c) => ({ data: c.data, length: 32 })));

describe('Bao, batched paths against node-by-node hashing and the official hash', () => {
  it('baoEncode and BaoEncoder (random pieces) write what node-by-node hashing writes, combined and outboard', () => {
    for (const [k, { g, leafBytes, data }] of cases.entries()) {
      const what = `${data.length} bytes, chunkGroupLog ${g}`;
      for (const outboard of [false, true]) {
        const want = nodeByNode(data, leafBytes, outboard, official[k]);
        assert.equal(bytesToHex(want.hash), official[k], what);
        const got = baoEncode(data, { outboard, chunkGroupLog: g });
        assert.equal(bytesToHex(got.hash), official[k], what);
        assert.ok(Buffer.from(got.encoded).equals(Buffer.from(want.encoded)), `${what}, outboard ${outboard}`);
      }
      const encoder = new BaoEncoder({ chunkGroupLog: g });
      for (let i = 0; i < data.length;) {
        const n = rng.pick([1, leafBytes - 1, leafBytes, leafBytes + 1, rng.int(0, 3 * leafBytes), 65536]);
        encoder.update(data.subarray(i, (i += n)));
      }
      const { hash, outboard } = encoder.finalize();
      assert.equal(bytesToHex(hash), official[k], what);
      assert.ok(
        Buffer.from(outboard).equals(Buffer.from(nodeByNode(data, leafBytes, true, official[k]).encoded)),
        what,
      );
    }
  });

  it('BaoVerifyStream releases the content for writes of any size, and the same prefix under a flipped bit', async () => {
    for (const [k, { g, data }] of cases.entries()) {
      const combined = baoEncode(data, { chunkGroupLog: g }).encoded;
      const outboard = baoEncode(data, { outboard: true, chunkGroupLog: g }).encoded;
      for (const maxWrite of [100, 5000, 70_000, 1 << 20]) {
        const what = `${data.length} bytes, chunkGroupLog ${g}, writes up to ${maxWrite}`;
        const opts = { chunkGroupLog: g };
        const a = await consume(
          chunkedStream(rng, combined, maxWrite).pipeThrough(new BaoVerifyStream(official[k], opts)),
        );
        assert.equal(a.error, null, what);
        assert.ok(Buffer.from(a.released).equals(Buffer.from(data)), what);
        const b = await consume(
          chunkedStream(rng, data, maxWrite).pipeThrough(
            new BaoVerifyStream(official[k], {
              ...opts,
              outboard: rng.int(0, 1) ? outboard : chunkedStream(rng, outboard, 3000),
            }),
          ),
        );
        assert.equal(b.error, null, `${what}, outboard`);
        assert.ok(Buffer.from(b.released).equals(Buffer.from(data)), `${what}, outboard`);
      }
      if (combined.length <= 8) continue;
      const bad = combined.slice();
      bad[rng.int(8, bad.length - 1)] ^= 1 << rng.int(0, 7);
      // Small writes check nearly node by node; large ones gather whole subtrees and look again
      // node by node when one fails: the released prefix must be the same.
      const small = await consume(
        chunkedStream(rng, bad, 300).pipeThrough(new BaoVerifyStream(official[k], { chunkGroupLog: g })),
      );
      const large = await consume(
        chunkedStream(rng, bad, 1 << 20).pipeThrough(new BaoVerifyStream(official[k], { chunkGroupLog: g })),
      );
      for (const out of [small, large]) {
        assert.equal(out.error?.name, 'IntegrityError', `${data.length} bytes, chunkGroupLog ${g}`);
        assert.ok(Buffer.from(out.released).equals(Buffer.from(data.subarray(0, out.released.length))));
      }
      assert.equal(large.released.length, small.released.length, `${data.length} bytes, chunkGroupLog ${g}`);
    }
  });

  it('fixed write sizes: subtrees whose content fits in a write but whose encoding spans two, intact and with a flipped bit', async () => {
    /** Writes of exactly `size` bytes (the last shorter), each in a buffer the writer overwrites once the write resolved. */
    const fixed = (bytes: Uint8Array, size: number): ReadableStream<Uint8Array> => {
      let at = 0;
      let last: Uint8Array | undefined;
      return new ReadableStream(
        {
          pull(c) {
            last?.fill(0xa5);
            if (at >= bytes.length) return c.close();
            c.enqueue((last = bytes.slice(at, (at += size))));
          },
        },
        { highWaterMark: 0 },
      );
    };
    const sizes = [0, 1, 2 * 65536 + 1, 5 * 65536 - 1000, 1_300_000, rng.int(0, 2_000_000)];
    const data = rng.bytes(Math.max(...sizes));
    const hashes = oracle(sizes.map((n) => ({ data: data.subarray(0, n), length: 32 })));
    for (const [k, n] of sizes.entries()) {
      const content = data.subarray(0, n);
      for (const g of [0, 4]) {
        const combined = baoEncode(content, { chunkGroupLog: g }).encoded;
        const outboard = baoEncode(content, { outboard: true, chunkGroupLog: g }).encoded;
        for (const size of [1024, 65536, 65536 + 64, 1 << 20]) {
          const what = `${n} bytes, chunkGroupLog ${g}, writes of ${size}`;
          const opts = { chunkGroupLog: g };
          const a = await consume(fixed(combined, size).pipeThrough(new BaoVerifyStream(hashes[k], opts)));
          assert.equal(a.error, null, what);
          assert.ok(Buffer.from(a.released).equals(Buffer.from(content)), what);
          const b = await consume(
            fixed(content, size).pipeThrough(new BaoVerifyStream(hashes[k], { ...opts, outboard })),
          );
          assert.equal(b.error, null, `${what}, outboard`);
          assert.ok(Buffer.from(b.released).equals(Buffer.from(content)), `${what}, outboard`);
          if (combined.length <= 8) continue;
          // A flipped bit past the first write: the released prefix is what one-byte checking releases.
          const bad = combined.slice();
          bad[rng.int(Math.min(size, bad.length - 1), bad.length - 1)] ^= 1 << rng.int(0, 7);
          const want = await consume(fixed(bad, 333).pipeThrough(new BaoVerifyStream(hashes[k], opts)));
          const got = await consume(fixed(bad, size).pipeThrough(new BaoVerifyStream(hashes[k], opts)));
          assert.equal(got.error?.name, 'IntegrityError', what);
          assert.equal(got.released.length, want.released.length, what);
          assert.ok(Buffer.from(got.released).equals(Buffer.from(content.subarray(0, got.released.length))), what);
        }
      }
    }
  });
});
