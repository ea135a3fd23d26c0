import { blake3, bytesToHex, CHUNK_LEN, OUT_LEN, type Blake3Opts } from '@blake3-web/core';
import {
  ChainingValueStack,
  chainingValueStack,
  cvStackDepth,
  hashSubtree,
  leftSubtreeLen,
  maxSubtreeLen,
  Mode,
} from '@blake3-web/core/hazmat';
import { oracle, Random, testSeed, type OracleRequest } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forEachBackend } from './_backends.ts';

/**
 * `input` cut at random into subtrees the stack accepts: each a power of two chunks, at most
 * what its offset allows, the last any length.
 */
function randomSubtrees(length: number, rng: Random, from = 0, maxTotal = Infinity): [number, number][] {
  const out: [number, number][] = [];
  for (let at = from; at < from + length;) {
    const rest = from + length - at;
    const max = Math.min(at === 0 ? Infinity : maxSubtreeLen(at)!, maxTotal - (at - from));
    if (rest <= max && rng.int(0, 3) === 0) {
      out.push([at, rest]);
      break;
    }
    let size = CHUNK_LEN;
    const limit = Math.min(max, rest);
    const steps = rng.int(0, 12);
    for (let i = 0; i < steps && size * 2 <= limit; i++) size *= 2;
    out.push([at, Math.min(size, rest)]);
    at += Math.min(size, rest);
  }
  return out;
}

function stackOf(
  input: Uint8Array,
  subtrees: [number, number][],
  opts: Blake3Opts | Mode,
  from = 0,
): ChainingValueStack {
  const mode = opts instanceof Mode ? opts : new Mode({ ...opts, dkLen: undefined });
  const stack = new ChainingValueStack(opts, from);
  for (const [at, len] of subtrees)
    stack.push(hashSubtree(input.subarray(at - from, at - from + len), at, mode), at, len);
  return stack;
}

const rng = new Random(testSeed() ^ 0xc5_7ac4);
const modes = (i: number): Pick<Blake3Opts, 'key' | 'context'> =>
  i % 3 === 1 ? { key: rng.bytes(32) } : i % 3 === 2 ? { context: `blake3-web stack test ${i}` } : {};
// Lengths that end on a power of two chunks (where an eager merge builds the wrong tree), just past
// one, and random ones.
const cases = Array.from({ length: 36 }, (_, i) => {
  const length = rng.pick([
    2 * CHUNK_LEN,
    4 * CHUNK_LEN,
    64 * CHUNK_LEN,
    4 * CHUNK_LEN + 1,
    3 * CHUNK_LEN,
    rng.int(CHUNK_LEN + 1, 70_000),
    rng.int(1 << 16, 1 << 20),
  ]);
  const request: OracleRequest = {
    data: rng.bytes(length),
    ...modes(i),
    length: rng.pick([1, 32, 33, 64, 131, 1000]),
    seek: rng.pick([0, 0, 1, 63, 64, 1000, 2 ** 40 + 7]),
  };
  return request;
});
const expected = oracle(cases);

forEachBackend('ChainingValueStack', () => {
  it('subtrees pushed at random splits give the official root, in every mode, any length, from any seek', () => {
    for (const [i, c] of cases.entries()) {
      const opts = { key: c.key, context: c.context };
      let subtrees = randomSubtrees(c.data.length, rng);
      while (subtrees.length < 2) subtrees = randomSubtrees(c.data.length, rng);
      const stack = stackOf(c.data, subtrees, { ...opts, dkLen: c.length });
      const what = `case ${i}: ${c.data.length} bytes as ${subtrees.map(([, n]) => n).join('+')}`;
      const reader = stack.reader();
      reader.position = BigInt(c.seek!);
      assert.equal(bytesToHex(reader.read(c.length)), expected[i], what);
      if (c.seek === 0) {
        assert.equal(bytesToHex(stack.digest()), expected[i], what);
        const into = new Uint8Array(c.length);
        stack.digestInto(into);
        assert.equal(bytesToHex(into), expected[i], what);
      }
    }
  });

  it('a power-of-two count of subtrees keeps its last one apart until the root: chunks pushed one by one', () => {
    const input = rng.bytes(16 * CHUNK_LEN);
    for (const [n, size] of [
      [2, 1024],
      [4, 1024],
      [8, 1024],
      [4, 2048],
      [2, 8192],
      [16, 1024],
    ]) {
      const bytes = input.subarray(0, n * size);
      const stack = new ChainingValueStack();
      for (let at = 0; at < bytes.length; at += size)
        stack.push(hashSubtree(bytes.subarray(at, at + size), at), at, size);
      assert.deepEqual(stack.digest(), blake3(bytes), `${n} subtrees of ${size} bytes`);
    }
  });

  it('state() and fromState() resume anywhere a chunk boundary falls, with the documented number of values', () => {
    for (const [i, c] of cases.slice(0, 12).entries()) {
      const opts = { key: c.key, context: c.context };
      const mode = new Mode(opts);
      const subtrees = randomSubtrees(c.data.length, rng);
      if (subtrees.length < 2) continue;
      const cut = rng.int(1, subtrees.length - 1);
      const first = stackOf(c.data, subtrees.slice(0, cut), mode);
      const state = first.state();
      assert.equal(state.offset, subtrees[cut][0]);
      assert.equal(state.cvs.length, OUT_LEN * cvStackDepth(state.offset));
      // Plain data: a structured clone or JSON of the hex comes back the same.
      const resumed = ChainingValueStack.fromState(structuredClone(state), mode);
      assert.equal(resumed.offset, state.offset);
      for (const [at, len] of subtrees.slice(cut))
        resumed.push(hashSubtree(c.data.subarray(at, at + len), at, mode), at, len);
      assert.deepEqual(resumed.digest(32), blake3(c.data, opts), `case ${i}`);
      // state() left the first stack as it was.
      assert.deepEqual(first.state(), state);
    }
  });

  it('a stack from inputOffset gives the non-root chaining value of its subtree, as hashSubtree does', () => {
    const input = rng.bytes(1 << 18);
    for (let i = 0; i < 20; i++) {
      const from = rng.int(1, 255) * CHUNK_LEN;
      const max = maxSubtreeLen(from)!;
      const len = Math.min(rng.int(1, max), input.length - from);
      const mode = new Mode(modes(i));
      const subtrees = randomSubtrees(len, rng, from, max);
      const stack = stackOf(input.subarray(from), subtrees, mode, from);
      assert.deepEqual(
        stack.finalizeNonRoot(),
        hashSubtree(input.subarray(from, from + len), from, mode),
        `${len} at ${from}`,
      );
      assert.throws(() => stack.digest(), { name: 'RangeError', message: /starts at \d+, so it is a subtree/ });
    }
  });

  it('clone() is independent; digest() and state() do not change the stack', () => {
    const input = rng.bytes(9 * CHUNK_LEN + 5);
    const stack = chainingValueStack();
    stack.push(hashSubtree(input.subarray(0, 8192), 0), 0, 8192);
    const copy = stack.clone();
    stack.push(hashSubtree(input.subarray(8192), 8192), 8192, input.length - 8192);
    assert.deepEqual(stack.digest(), blake3(input));
    assert.deepEqual(stack.digest(), blake3(input));
    assert.equal(copy.offset, 8192);
    copy.push(hashSubtree(input.subarray(8192, 9216), 8192), 8192, 1024);
    copy.push(hashSubtree(input.subarray(9216), 9216), 9216, 5);
    assert.deepEqual(copy.digest(), blake3(input));
  });
});

it('cvStackDepth is the set bits of the chunk count, past 2^53 chunks too', () => {
  assert.equal(cvStackDepth(0), 0);
  assert.equal(cvStackDepth(1024), 1);
  assert.equal(cvStackDepth(3 * 1024), 2);
  assert.equal(cvStackDepth(4 * 1024), 1);
  assert.equal(cvStackDepth(1024 * (2 ** 40 - 1)), 40);
  assert.equal(cvStackDepth(1024n * (2n ** 54n - 1n)), 54);
  assert.throws(() => cvStackDepth(1000), {
    name: 'RangeError',
    message: /inputOffset must be a multiple of 1024, got 1000/,
  });
  assert.throws(() => cvStackDepth(-1024), { name: 'RangeError', message: /inputOffset/ });
});

it('pushes that would build another tree are refused with a RangeError naming the argument, and change nothing', () => {
  const cv = new Uint8Array(32);
  const stack = new ChainingValueStack();
  const refused = (fn: () => unknown, message: RegExp) => {
    const before = stack.offset;
    assert.throws(fn, { name: 'RangeError', message });
    assert.equal(stack.offset, before);
  };
  refused(() => stack.push(cv, 1024, 1024), /inputOffset must be 0, where the stack ends, got 1024/);
  refused(() => stack.push(cv, 0, 0), /inputLen must not be 0/);
  stack.push(cv, 0, 1024);
  // At chunk 1 only one chunk fits: two would straddle the tree's split.
  refused(() => stack.push(cv, 1024, 2048), /inputLen must be at most 1024 for a subtree at 1024, got 2048/);
  refused(() => stack.push(cv, 2048, 1024), /inputOffset must be 1024, where the stack ends, got 2048/);
  refused(() => stack.push(cv, 512, 512), /inputOffset must be 1024/);
  assert.throws(() => stack.push(new Uint8Array(31), 1024, 1024), {
    name: 'RangeError',
    message: /cv must be 32 bytes, got 31/,
  });
  assert.throws(() => stack.push('00' as never, 1024, 1024), { name: 'TypeError', message: /cv must be a Uint8Array/ });
  assert.throws(() => stack.push(cv, -1024, 1024), { name: 'RangeError', message: /inputOffset/ });
  assert.throws(() => stack.push(cv, 1024, 1.5), { name: 'RangeError', message: /inputLen/ });
  assert.throws(() => stack.push(cv, 1024, 2n ** 60n), {
    name: 'RangeError',
    message: /inputLen must be at most 2\^53 - 1/,
  });
  // One subtree is the whole input: it has no root to merge.
  refused(() => stack.digest(), /at least two subtrees for a root, got 1/);
  stack.push(cv, 1024, 1000);
  // A subtree that is not a power of two chunks was the last.
  refused(() => stack.push(cv, 2024, 1024), /not a power of two chunks, so it was the last/);
  refused(() => stack.state(), /ends with its last subtree/);
  // A stack starting inside an input stays within the subtree there.
  const inner = new ChainingValueStack({}, 4096);
  inner.push(cv, 4096, 2048);
  assert.throws(() => inner.push(cv, 6144, 4096), {
    name: 'RangeError',
    message: /at most 2048 for a subtree at 6144/,
  });
  assert.throws(() => new ChainingValueStack({}, 1000), {
    name: 'RangeError',
    message: /inputOffset must be a multiple of 1024/,
  });
  assert.throws(() => new ChainingValueStack().finalizeNonRoot(), { name: 'RangeError', message: /empty/ });
});

it('fromState refuses a state whose values do not fit its offset', () => {
  const cvs = new Uint8Array(64);
  assert.throws(() => ChainingValueStack.fromState({ offset: 3072, cvs: cvs.subarray(0, 32) }), {
    name: 'RangeError',
    message: /state.cvs must be 64 bytes, got 32/,
  });
  assert.throws(() => ChainingValueStack.fromState({ offset: 3000, cvs }), {
    name: 'RangeError',
    message: /state.offset must be a multiple of 1024/,
  });
  assert.throws(() => ChainingValueStack.fromState(null as never), { name: 'TypeError', message: /state must be/ });
  assert.throws(() => ChainingValueStack.fromState({ offset: 12288, cvs }, {}, 4096), {
    name: 'RangeError',
    message: /state.offset must be from 4096 to 8192/,
  });
  assert.equal(ChainingValueStack.fromState({ offset: 3072, cvs }).offset, 3072);
});

it('leftSubtreeLen and cvStackDepth give numbers the same answers as bigints, around every power of two', () => {
  for (let k = 10; k < 53; k++) {
    for (const len of [2 ** k - 1, 2 ** k, 2 ** k + 1, 2 ** k + 1024, 3 * 2 ** (k - 1) - 1]) {
      if (len <= CHUNK_LEN || !Number.isSafeInteger(len)) continue;
      assert.equal(leftSubtreeLen(len), Number(leftSubtreeLen(BigInt(len))), `leftSubtreeLen(${len})`);
    }
    const offset = 2 ** k - (k > 10 ? 1024 : 0);
    assert.equal(cvStackDepth(offset), cvStackDepth(BigInt(offset)), `cvStackDepth(${offset})`);
  }
});
