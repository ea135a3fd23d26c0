import { blake3, bytesToHex, type Blake3Opts } from '@blake3-web/core';
import { hashSubtree, leftSubtreeLen, maxSubtreeLen, mergeManySubtreesNonRoot, mergeSubtreesNonRoot, mergeSubtreesRoot } from '@blake3-web/core/hazmat';
import { paint, Random, testSeed } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forEachBackend } from './_backends.ts';

/** The chaining value of input[start, start + len) computed the way a parallel tree builder would: split by leftSubtreeLen. */
function treeCv(input: Uint8Array, start: number, len: number, opts: Blake3Opts, rng: Random): Uint8Array {
  // Hash a whole subtree in one call when allowed, sometimes, to mix the two ways.
  const max = start === 0 ? Infinity : maxSubtreeLen(start)!;
  if (len <= 1024 || (len <= max && rng.int(0, 2) === 0)) return hashSubtree(input.subarray(start, start + len), start, opts);
  const left = leftSubtreeLen(len);
  return mergeSubtreesNonRoot(treeCv(input, start, left, opts, rng), treeCv(input, start + left, len - left, opts, rng), opts);
}

const modes: Blake3Opts[] = [{}, { key: new Uint8Array(32).fill(7) }, { context: 'blake3-web hazmat test' }];

forEachBackend('hazmat', () => {
  it('random power-of-two splits reproduce blake3() in every mode, with any dkLen', () => {
    const rng = new Random(testSeed());
    for (let i = 0; i < 60; i++) {
      const len = rng.pick([1025, 2048, 2049, 4096, 4097, 8191, rng.int(1025, 300_000), rng.int(1 << 20, 3 << 20)]);
      const input = rng.bytes(len);
      const opts = modes[i % 3];
      const dkLen = rng.pick([0, 1, 32, 131]);
      const split = leftSubtreeLen(len);
      const root = mergeSubtreesRoot(treeCv(input, 0, split, opts, rng), treeCv(input, split, len - split, opts, rng), { ...opts, dkLen });
      assert.equal(bytesToHex(root), bytesToHex(blake3(input, { ...opts, dkLen })), `length ${len}, mode ${Object.keys(opts)}`);
    }
  });

  it('a 3-chunk tree: chunk CVs merged by hand give the hash', () => {
    const input = paint(3072);
    const c0 = hashSubtree(input.subarray(0, 1024), 0);
    const c1 = hashSubtree(input.subarray(1024, 2048), 1024);
    const c2 = hashSubtree(input.subarray(2048), 2048n);
    const root = mergeSubtreesRoot(mergeSubtreesNonRoot(c0, c1), c2);
    assert.deepEqual(root, blake3(input));
    // Hashing the first two chunks together is the same subtree.
    assert.deepEqual(hashSubtree(input.subarray(0, 2048), 0), mergeSubtreesNonRoot(c0, c1));
  });

  it('subtrees far into a huge input: offsets past 2^32 chunks', () => {
    // A subtree of 2 chunks at chunk 2^33 equals the parent of its two chunks.
    const offset = 2n ** 43n;
    const input = paint(2048);
    const both = hashSubtree(input, offset);
    const left = hashSubtree(input.subarray(0, 1024), offset);
    const right = hashSubtree(input.subarray(1024), offset + 1024n);
    assert.deepEqual(both, mergeSubtreesNonRoot(left, right));
    // The chunk counter matters: the same bytes at another offset give another value.
    assert.notDeepEqual(left, hashSubtree(input.subarray(0, 1024), offset + 2048n));
  });

  it('leftSubtreeLen and maxSubtreeLen follow the power-of-two rule and keep the argument type', () => {
    assert.equal(leftSubtreeLen(1025), 1024);
    assert.equal(leftSubtreeLen(2048), 1024);
    assert.equal(leftSubtreeLen(2049), 2048);
    assert.equal(leftSubtreeLen(4097), 4096);
    assert.equal(leftSubtreeLen(1n << 40n), 1n << 39n);
    assert.equal(maxSubtreeLen(0), undefined);
    for (const [chunk, chunks] of [[1, 1], [2, 2], [3, 1], [4, 4], [5, 1], [6, 2], [7, 1], [8, 8]]) {
      assert.equal(maxSubtreeLen(chunk * 1024), chunks * 1024);
    }
    assert.equal(maxSubtreeLen(1n << 50n), 1n << 50n);
  });

  it('mergeManySubtreesNonRoot equals mergeSubtreesNonRoot per node, across kernel pieces, in every mode', () => {
    const rng = new Random(testSeed() ^ 0x9a7e);
    for (const count of [0, 1, 3, 4, 7, 8, 9, 63, 1023, 1024, 1025, 2049]) {
      const opts = rng.pick(modes);
      // Nodes at an odd offset of a larger buffer.
      const nodes = rng.bytes(64 * count + 3).subarray(3);
      const got = mergeManySubtreesNonRoot(nodes, opts);
      assert.equal(got.length, 32 * count);
      for (let i = 0; i < count; i++) {
        const want = mergeSubtreesNonRoot(nodes.subarray(64 * i, 64 * i + 32), nodes.subarray(64 * i + 32, 64 * i + 64), opts);
        assert.equal(bytesToHex(got.subarray(32 * i, 32 * i + 32)), bytesToHex(want), `${count} nodes, node ${i}`);
      }
    }
    assert.throws(() => mergeManySubtreesNonRoot(new Uint8Array(65)), /RangeError: nodes must be a whole number of 64-byte parent nodes, got 65 bytes/);
    assert.throws(() => mergeManySubtreesNonRoot([1, 2] as unknown as Uint8Array), /TypeError: nodes must be a Uint8Array/);
    assert.throws(() => mergeManySubtreesNonRoot(new Uint8Array(64), { dkLen: 32 } as Blake3Opts), /TypeError: mergeManySubtreesNonRoot returns a 32-byte chaining value/);
  });

  it('rejects the documented misuse', () => {
    assert.throws(() => hashSubtree(new Uint8Array(0), 0), { name: 'RangeError', message: /empty/ });
    assert.throws(() => hashSubtree(new Uint8Array(10), 1), { name: 'RangeError', message: /inputOffset.*multiple of 1024/ });
    assert.throws(() => hashSubtree(new Uint8Array(1025), 1024), { name: 'RangeError', message: /at most 1024 bytes/ });
    assert.throws(() => hashSubtree(new Uint8Array(4097), 4096), { name: 'RangeError', message: /at most 4096 bytes/ });
    assert.throws(() => hashSubtree(new Uint8Array(10), -1024), { name: 'RangeError', message: /inputOffset/ });
    assert.throws(() => hashSubtree(new Uint8Array(10), 0, { dkLen: 64 } as never), { name: 'TypeError', message: /dkLen/ });
    assert.throws(() => leftSubtreeLen(1024), { name: 'RangeError', message: /inputLen.*one chunk/ });
    assert.throws(() => maxSubtreeLen(100), { name: 'RangeError', message: /inputOffset/ });
    assert.throws(() => mergeSubtreesNonRoot(new Uint8Array(31), new Uint8Array(32)), { name: 'RangeError', message: /left must be 32 bytes/ });
    assert.throws(() => mergeSubtreesRoot(new Uint8Array(32), 'x' as never), { name: 'TypeError', message: /right/ });
  });
});
