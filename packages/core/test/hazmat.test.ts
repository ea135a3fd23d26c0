import { blake3, bytesToHex, BLOCK_LEN, CHUNK_LEN, KEY_LEN, OUT_LEN, type Blake3Opts } from '@blake3-web/core';
import * as hazmat from '@blake3-web/core/hazmat';
import {
  hashSubtree,
  leftSubtreeLen,
  maxSubtreeLen,
  hashSubtrees,
  mergeManySubtreesNonRoot,
  mergeSubtreesNonRoot,
  mergeSubtreesRoot,
  Mode,
  subtreeHasher,
} from '@blake3-web/core/hazmat';
import { oracle, paint, Random, testSeed } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forEachBackend } from './_backends.ts';

/** The chaining value of input[start, start + len) computed the way a parallel tree builder would: split by leftSubtreeLen. */
function treeCv(input: Uint8Array, start: number, len: number, opts: Blake3Opts, rng: Random): Uint8Array {
  // Hash a whole subtree in one call when allowed, sometimes, to mix the two ways.
  const max = start === 0 ? Infinity : maxSubtreeLen(start)!;
  if (len <= 1024 || (len <= max && rng.int(0, 2) === 0))
    return hashSubtree(input.subarray(start, start + len), start, opts);
  const left = leftSubtreeLen(len);
  return mergeSubtreesNonRoot(
    treeCv(input, start, left, opts, rng),
    treeCv(input, start + left, len - left, opts, rng),
    opts,
  );
}

const modes: Blake3Opts[] = [{}, { key: new Uint8Array(32).fill(7) }, { context: 'blake3-web hazmat test' }];

/** `bytes` fed to a subtree hasher at `offset` in pieces cut at random points. */
function subtreeInPieces(bytes: Uint8Array, offset: number, opts: Blake3Opts | Mode, rng: Random): Uint8Array {
  const h = subtreeHasher(offset, opts instanceof Mode ? opts : { ...opts, dkLen: undefined });
  const cuts = Array.from({ length: rng.int(0, 5) }, () => rng.int(0, bytes.length)).sort((a, b) => a - b);
  let prev = 0;
  for (const cut of [...cuts, bytes.length]) {
    h.update(bytes.subarray(prev, cut));
    prev = cut;
  }
  assert.equal(h.length, bytes.length);
  return h.finalizeNonRoot();
}

/** The root of `input`, its two top subtrees cut into aligned subtrees at random and hashed in pieces. */
function rootFromPieces(input: Uint8Array, opts: Blake3Opts, rng: Random): Uint8Array {
  const mode = new Mode(opts);
  const cv = (start: number, len: number): Uint8Array => {
    const max = start === 0 ? Infinity : maxSubtreeLen(start)!;
    if (len <= CHUNK_LEN || (len <= max && rng.int(0, 2) === 0))
      return subtreeInPieces(input.subarray(start, start + len), start, mode, rng);
    const left = leftSubtreeLen(len);
    return mergeSubtreesNonRoot(cv(start, left), cv(start + left, len - left), mode);
  };
  const split = leftSubtreeLen(input.length);
  return mergeSubtreesRoot(cv(0, split), cv(split, input.length - split), mode);
}

// Roots built from subtree hashers, checked against the official implementation.
const oracleRng = new Random(testSeed() ^ 0x5b7e);
const oracleCases = Array.from({ length: 24 }, (_, i) => {
  const data = oracleRng.bytes(
    oracleRng.pick([1025, 2048, 4097, oracleRng.int(1025, 70_000), oracleRng.int(1 << 16, 1 << 20)]),
  );
  const key = i % 3 === 1 ? oracleRng.bytes(32) : undefined;
  const context = i % 3 === 2 ? `blake3-web subtree ${i}` : undefined;
  return { data, key, context, length: oracleRng.pick([0, 1, 32, 131]) };
});
const oracleHashes = oracle(oracleCases);

forEachBackend('hazmat', () => {
  it('random power-of-two splits reproduce blake3() in every mode, with any dkLen', () => {
    const rng = new Random(testSeed());
    for (let i = 0; i < 60; i++) {
      const len = rng.pick([1025, 2048, 2049, 4096, 4097, 8191, rng.int(1025, 300_000), rng.int(1 << 20, 3 << 20)]);
      const input = rng.bytes(len);
      const opts = modes[i % 3];
      const dkLen = rng.pick([0, 1, 32, 131]);
      const split = leftSubtreeLen(len);
      const root = mergeSubtreesRoot(treeCv(input, 0, split, opts, rng), treeCv(input, split, len - split, opts, rng), {
        ...opts,
        dkLen,
      });
      assert.equal(
        bytesToHex(root),
        bytesToHex(blake3(input, { ...opts, dkLen })),
        `length ${len}, mode ${Object.keys(opts)}`,
      );
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
    for (const [chunk, chunks] of [
      [1, 1],
      [2, 2],
      [3, 1],
      [4, 4],
      [5, 1],
      [6, 2],
      [7, 1],
      [8, 8],
    ]) {
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
        const want = mergeSubtreesNonRoot(
          nodes.subarray(64 * i, 64 * i + 32),
          nodes.subarray(64 * i + 32, 64 * i + 64),
          opts,
        );
        assert.equal(bytesToHex(got.subarray(32 * i, 32 * i + 32)), bytesToHex(want), `${count} nodes, node ${i}`);
      }
    }
    assert.throws(
      () => mergeManySubtreesNonRoot(new Uint8Array(65)),
      /RangeError: nodes must be a whole number of 64-byte parent nodes, got 65 bytes/,
    );
    assert.throws(
      () => mergeManySubtreesNonRoot([1, 2] as unknown as Uint8Array),
      /TypeError: nodes must be a Uint8Array/,
    );
    assert.throws(
      () => mergeManySubtreesNonRoot(new Uint8Array(64), { dkLen: 32 } as Blake3Opts),
      /TypeError: mergeManySubtreesNonRoot returns a 32-byte chaining value/,
    );
  });

  it('hashSubtrees equals hashSubtree on each subtree, across kernel calls and past 2^32 chunks, in every mode', () => {
    const rng = new Random(testSeed() ^ 0x5b75);
    for (let i = 0; i < 60; i++) {
      const opts = modes[i % 3];
      const chunks = 2 ** rng.int(0, 8);
      const subtreeLen = chunks * CHUNK_LEN;
      const offset = (rng.int(0, 3) === 0 ? 2 ** 33 : 0) + subtreeLen * rng.int(0, 40);
      const count = rng.pick([1, 2, rng.int(1, 130)]);
      const len = rng.pick([count * subtreeLen, (count - 1) * subtreeLen + rng.int(1, subtreeLen)]);
      // At an odd offset of a larger buffer.
      const input = rng.bytes(len + 1).subarray(1);
      const got = hashSubtrees(input, i % 2 ? BigInt(offset) : offset, subtreeLen, i % 4 ? opts : new Mode(opts));
      assert.equal(got.length, 32 * count);
      for (let k = 0; k < count; k++) {
        const want = hashSubtree(input.subarray(k * subtreeLen, (k + 1) * subtreeLen), offset + k * subtreeLen, opts);
        const what = `${len} bytes in subtrees of ${chunks} chunks at ${offset}, subtree ${k}`;
        assert.equal(bytesToHex(got.subarray(32 * k, 32 * k + 32)), bytesToHex(want), what);
      }
    }
    assert.throws(
      () => hashSubtrees(new Uint8Array(10), 0, 3072),
      /RangeError: subtreeLen must be a power of two times 1024/,
    );
    assert.throws(
      () => hashSubtrees(new Uint8Array(10), 0, 512),
      /RangeError: subtreeLen must be a power of two times 1024/,
    );
    assert.throws(
      () => hashSubtrees(new Uint8Array(10), 2048, 4096),
      /RangeError: inputOffset must be a multiple of subtreeLen \(4096\), got 2048/,
    );
    assert.throws(() => hashSubtrees(new Uint8Array(0), 0, 1024), /RangeError: input must not be empty/);
    assert.throws(
      () => hashSubtrees(new Uint8Array(10), 0, 1024, { dkLen: 32 } as Blake3Opts),
      /TypeError: hashSubtrees returns/,
    );
  });

  it('subtreeHasher equals hashSubtree at random offsets, in random pieces, in every mode', () => {
    const rng = new Random(testSeed() ^ 0x50b7);
    for (let i = 0; i < 80; i++) {
      const opts = modes[i % 3];
      // Offsets whose largest subtree is 1 to 2^12 chunks, past 2^32 chunks now and then.
      const chunks = 2 ** rng.int(0, 12);
      const offset = (rng.int(0, 3) === 0 ? 2 ** 33 : 0) + chunks * CHUNK_LEN * (2 * rng.int(0, 50) + 1);
      const len = rng.pick([1, 1023, 1024, 1025, rng.int(1, chunks * CHUNK_LEN), chunks * CHUNK_LEN]);
      const bytes = rng.bytes(Math.min(len, chunks * CHUNK_LEN));
      const want = bytesToHex(hashSubtree(bytes, offset, opts));
      assert.equal(bytesToHex(subtreeInPieces(bytes, offset, opts, rng)), want, `${bytes.length} bytes at ${offset}`);
      assert.equal(
        bytesToHex(subtreeInPieces(bytes, offset, new Mode(opts), rng)),
        want,
        `${bytes.length} bytes at ${offset}, resolved mode`,
      );
    }
  });

  it('subtreeHasher at offset 0 takes any length; its value is the non-root one of the whole input', () => {
    const rng = new Random(testSeed() ^ 0x0ff0);
    for (const len of [1, 1024, 1025, 4096, 16 * 1024, 16 * 1024 + 1, 100_000]) {
      const input = rng.bytes(len);
      assert.deepEqual(subtreeInPieces(input, 0, {}, rng), hashSubtree(input, 0), `${len} bytes`);
    }
  });

  it('roots merged from subtree hashers match the official implementation', () => {
    const rng = new Random(testSeed() ^ 0x0ac1);
    for (const [i, c] of oracleCases.entries()) {
      const opts: Blake3Opts = c.key
        ? { key: c.key, dkLen: c.length }
        : c.context !== undefined
          ? { context: c.context, dkLen: c.length }
          : { dkLen: c.length };
      assert.equal(bytesToHex(rootFromPieces(c.data, opts, rng)), oracleHashes[i], `case ${i}: ${c.data.length} bytes`);
    }
  });

  it('a Mode is resolved once and means what its options mean', () => {
    const rng = new Random(testSeed() ^ 0x30de);
    const l = rng.bytes(32);
    const r = rng.bytes(32);
    for (const opts of modes) {
      const mode = new Mode({ ...opts, dkLen: 45 });
      assert.equal(mode.dkLen, 45);
      assert.deepEqual(mergeSubtreesRoot(l, r, mode), mergeSubtreesRoot(l, r, { ...opts, dkLen: 45 }));
      // Functions that return chaining values use the mode's key and flags, not its dkLen.
      assert.deepEqual(mergeSubtreesNonRoot(l, r, mode), mergeSubtreesNonRoot(l, r, opts));
      assert.deepEqual(hashSubtree(paint(3000), 4096, mode), hashSubtree(paint(3000), 4096, opts));
      assert.deepEqual(mergeManySubtreesNonRoot(paint(128), mode), mergeManySubtreesNonRoot(paint(128), opts));
    }
    // The key is copied: changing the caller's array afterwards changes nothing.
    const key = new Uint8Array(32).fill(7);
    const mode = new Mode({ key });
    key.fill(8);
    assert.deepEqual(mergeSubtreesNonRoot(l, r, mode), mergeSubtreesNonRoot(l, r, { key: new Uint8Array(32).fill(7) }));
    assert.equal(new Mode().dkLen, 32);
    assert.throws(() => new Mode({ key: new Uint8Array(31) }), {
      name: 'RangeError',
      message: /opts.key must be 32 bytes/,
    });
    assert.throws(() => new Mode({ key: new Uint8Array(32), context: 'c' }), {
      name: 'TypeError',
      message: /opts.key and opts.context/,
    });
    assert.throws(() => new Mode({ dkLen: 2 ** 31 }), {
      name: 'RangeError',
      message: /opts.dkLen must be at most 2\^30/,
    });
    assert.throws(() => new Mode(7 as never), { name: 'TypeError', message: /opts must be an object, got 7/ });
    // A Mode of another copy of the module is not read as empty options (the plain hash mode).
    const foreign = { [Symbol.for('@blake3-web/core/hazmat Mode')]: true, dkLen: 32 };
    for (const call of [
      () => mergeSubtreesRoot(l, r, foreign as never),
      () => hashSubtree(paint(10), 0, foreign as never),
      () => subtreeHasher(0, foreign as never),
    ]) {
      assert.throws(call, { name: 'TypeError', message: /^opts is a Mode made by another copy of @blake3-web\/core/ });
    }
  });

  it('the sizes are exported: OUT_LEN and KEY_LEN, BLOCK_LEN and CHUNK_LEN (also from hazmat)', () => {
    assert.deepEqual([OUT_LEN, KEY_LEN, BLOCK_LEN, CHUNK_LEN], [32, 32, 64, 1024]);
    assert.equal(blake3(new Uint8Array(0)).length, OUT_LEN);
    assert.deepEqual([hazmat.BLOCK_LEN, hazmat.CHUNK_LEN], [BLOCK_LEN, CHUNK_LEN]);
    // A chunk is the largest input whose subtree at the offset of one chunk is whole.
    assert.equal(maxSubtreeLen(CHUNK_LEN), CHUNK_LEN);
  });

  it('subtreeHasher refuses the misuse hashSubtree refuses, and a refused update changes nothing', () => {
    assert.throws(() => subtreeHasher(1000), {
      name: 'RangeError',
      message: /^inputOffset must be a multiple of 1024, got 1000/,
    });
    assert.throws(() => subtreeHasher(-1024), { name: 'RangeError', message: /inputOffset/ });
    assert.throws(() => subtreeHasher('1024' as never), { name: 'TypeError', message: /inputOffset/ });
    assert.throws(() => subtreeHasher(2n ** 64n), { name: 'RangeError', message: /inputOffset is too large/ });
    assert.throws(() => subtreeHasher(0, { dkLen: 32 } as never), {
      name: 'TypeError',
      message: /^subtreeHasher returns a 32-byte chaining value: opts.dkLen/,
    });
    assert.throws(() => subtreeHasher(0).finalizeNonRoot(), {
      name: 'RangeError',
      message: /empty subtrees are never valid/,
    });
    assert.throws(() => subtreeHasher(0).update(7 as never), { name: 'TypeError', message: /^input must be/ });
    const input = paint(4096);
    const h = subtreeHasher(4096).update(input.subarray(0, 3000));
    assert.throws(() => h.update(input.subarray(0, 1097)), {
      name: 'RangeError',
      message: /^input must be at most 4096 bytes for a subtree starting at 4096, got 4097/,
    });
    assert.equal(h.length, 3000);
    assert.deepEqual(h.update(input.subarray(3000)).finalizeNonRoot(), hashSubtree(input, 4096));
    // Finalizing leaves the hasher as it was: more input may follow.
    const g = subtreeHasher(8192n).update(input.subarray(0, 1500));
    assert.deepEqual(g.finalizeNonRoot(), hashSubtree(input.subarray(0, 1500), 8192));
    assert.deepEqual(
      g.update(input.subarray(1500, 2000)).finalizeNonRoot(),
      hashSubtree(input.subarray(0, 2000), 8192),
    );
  });

  it('rejects the documented misuse', () => {
    assert.throws(() => hashSubtree(new Uint8Array(0), 0), { name: 'RangeError', message: /empty/ });
    assert.throws(() => hashSubtree(new Uint8Array(10), 1), {
      name: 'RangeError',
      message: /inputOffset.*multiple of 1024/,
    });
    assert.throws(() => hashSubtree(new Uint8Array(1025), 1024), { name: 'RangeError', message: /at most 1024 bytes/ });
    assert.throws(() => hashSubtree(new Uint8Array(4097), 4096), { name: 'RangeError', message: /at most 4096 bytes/ });
    assert.throws(() => hashSubtree(new Uint8Array(10), -1024), { name: 'RangeError', message: /inputOffset/ });
    assert.throws(() => hashSubtree(new Uint8Array(10), 0, { dkLen: 64 } as never), {
      name: 'TypeError',
      message: /dkLen/,
    });
    assert.throws(() => leftSubtreeLen(1024), { name: 'RangeError', message: /inputLen.*one chunk/ });
    assert.throws(() => maxSubtreeLen(100), { name: 'RangeError', message: /inputOffset/ });
    assert.throws(() => mergeSubtreesNonRoot(new Uint8Array(31), new Uint8Array(32)), {
      name: 'RangeError',
      message: /left must be 32 bytes/,
    });
    assert.throws(() => mergeSubtreesRoot(new Uint8Array(32), 'x' as never), { name: 'TypeError', message: /right/ });
  });
});

it("a Mode's options are the plain key, context or neither it was made from, picked out of larger options", () => {
  const key = new Uint8Array(32).map((_, i) => i);
  const keyed = new Mode({ key, dkLen: 7, upload: 'x' } as Blake3Opts);
  assert.deepEqual(keyed.options, { key, dkLen: 7 });
  assert.notEqual(keyed.options.key, key);
  key[0] = 99; // a copy was kept
  assert.equal(keyed.options.key![0], 0);
  assert.deepEqual(new Mode({ context: 'c', signal: undefined } as Blake3Opts).options, { context: 'c', dkLen: 32 });
  assert.deepEqual(new Mode().options, { dkLen: 32 });
  assert.deepEqual(new Mode({ key: undefined, context: undefined }).options, { dkLen: 32 });
  // A Mode made of its options is the same mode.
  assert.deepEqual(mergeSubtreesRoot(key, key, new Mode(keyed.options)), mergeSubtreesRoot(key, key, keyed));
  assert.throws(() => new Mode({ key, context: 'c' }), {
    name: 'TypeError',
    message: /opts.key and opts.context cannot be used together/,
  });
});
