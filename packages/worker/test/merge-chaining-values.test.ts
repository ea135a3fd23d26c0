import { blake3, bytesToHex, type Blake3Opts } from '@blake3-web/core';
import {
  ChainingValueStack,
  hashSubtree,
  mergeSubtreesNonRoot,
  mergeSubtreesRoot,
  Mode,
} from '@blake3-web/core/hazmat';
import { paint, Random, testSeed } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InOrderMerger } from '../src/merge-chaining-values.ts';
import { planSubtrees, subtreeRange, type SubtreePlan } from '../src/plan-subtrees.ts';
import { KiB } from './_helpers.ts';

const modes: { name: string; opts: Blake3Opts }[] = [
  { name: 'hash', opts: {} },
  { name: 'keyed', opts: { key: paint(32, 7) } },
  { name: 'derive_key', opts: { context: 'blake3-web worker pool test' } },
];

/** Each subtree's chaining value, computed on this thread as a worker would. */
function subtreeCvs(input: Uint8Array, plan: SubtreePlan, opts: Blake3Opts): Uint8Array[] {
  return Array.from({ length: plan.count }, (_, i) => {
    const r = subtreeRange(plan, i);
    return hashSubtree(input.subarray(r.start, r.end), r.start, opts);
  });
}

/** The sizes the tree shape is most likely to get wrong for subtrees of `s` bytes. */
function boundarySizes(s: number): number[] {
  const out = [s + 1, s + 1024];
  for (const k of [2, 3, 4, 5, 7, 8, 9, 16, 17]) out.push(k * s - 1024, k * s - 1, k * s, k * s + 1, k * s + 1024);
  return out;
}

describe('merging subtree chaining values', () => {
  it('gives blake3() around every subtree-count boundary, in every mode and for dkLen 0/1/32/131', () => {
    const s = 4 * KiB;
    for (const total of boundarySizes(s)) {
      const input = paint(total);
      const plan = planSubtrees(total, s, 1);
      assert.ok(plan.count >= 2);
      for (const { name, opts } of modes) {
        const cvs = subtreeCvs(input, plan, opts);
        for (const dkLen of [0, 1, 32, 131]) {
          const merger = new InOrderMerger(plan, plan.count, new Mode({ ...opts, dkLen }));
          cvs.forEach((cv, i) => merger.accept(i, cv));
          const root = merger.finalize();
          assert.equal(
            bytesToHex(root),
            bytesToHex(blake3(input, { ...opts, dkLen })),
            `${name}, ${total} bytes, dkLen ${dkLen}`,
          );
        }
      }
    }
  });

  it('holds the last subtree back: merging it eagerly builds another tree', () => {
    // With 4 subtrees, eager merging makes ((a b)(c d)) a non-root parent; BLAKE3's root is
    // the parent of (a b) and (c d) itself.
    const input = paint(16 * KiB);
    const plan = planSubtrees(input.length, 4 * KiB, 1);
    const [a, b, c, d] = subtreeCvs(input, plan, {});
    const merger = new InOrderMerger(plan, 4);
    for (const [i, cv] of [a, b, c].entries()) merger.accept(i, cv);
    assert.equal(merger.done, false);
    merger.accept(3, d);
    assert.deepEqual(merger.finalize(), blake3(input));
    assert.deepEqual(mergeSubtreesRoot(mergeSubtreesNonRoot(a, b), mergeSubtreesNonRoot(c, d)), blake3(input));
  });

  it('merges values arriving in any order within its window', () => {
    const rng = new Random(testSeed());
    for (let round = 0; round < 40; round++) {
      const s = 2 ** rng.int(10, 14);
      const total = rng.int(s + 1, 40 * s);
      const input = rng.bytes(total);
      const { opts } = modes[round % 3];
      const plan = planSubtrees(total, s, 1);
      const cvs = subtreeCvs(input, plan, opts);
      // Deliver as a pool does: a task starts only within `window` of the first unmerged
      // subtree, and any task in flight may finish first.
      const window = rng.int(1, 8);
      const dkLen = rng.pick([0, 1, 32, 131]);
      const merger = new InOrderMerger(plan, window, new Mode({ ...opts, dkLen }));
      const inFlight: number[] = [];
      let started = 0;
      while (!merger.done) {
        while (started < plan.count && started < merger.next + window) inFlight.push(started++);
        const [i] = inFlight.splice(rng.int(0, inFlight.length - 1), 1);
        merger.accept(i, cvs[i]);
      }
      assert.equal(merger.done, true);
      assert.equal(merger.next, plan.count);
      assert.equal(
        bytesToHex(merger.finalize()),
        bytesToHex(blake3(input, { ...opts, dkLen })),
        `${total} bytes in ${s}-byte subtrees`,
      );
    }
  });

  it('rejects misuse instead of producing a hash', () => {
    const plan = (count: number): SubtreePlan => ({ total: count * 4 * KiB, subtreeBytes: 4 * KiB, count });
    assert.throws(() => new InOrderMerger(plan(1), 4), { name: 'RangeError', message: /count.*at least 2/ });
    assert.throws(() => new InOrderMerger(plan(3), 0), {
      name: 'RangeError',
      message: /window must be a positive integer, got 0/,
    });
    // A value further ahead than the window would wait unbounded: refused.
    const ahead = new InOrderMerger(plan(10), 2);
    assert.throws(() => ahead.accept(2, new Uint8Array(32)), { name: 'RangeError', message: /below 2, got 2/ });
    ahead.accept(1, new Uint8Array(32));
    ahead.accept(0, new Uint8Array(32));
    ahead.accept(3, new Uint8Array(32));
    const merger = new InOrderMerger(plan(3), 8);
    const cv = new Uint8Array(32);
    merger.accept(1, cv);
    assert.throws(() => merger.accept(1, cv), { name: 'RangeError', message: /index/ });
    assert.throws(() => merger.accept(3, cv), { name: 'RangeError', message: /below 3/ });
    assert.throws(() => merger.finalize(), { name: 'RangeError', message: /all 3 subtrees/ });
    merger.accept(0, cv);
    assert.throws(() => merger.accept(0, cv), { name: 'RangeError', message: /index/ });
    assert.throws(() => merger.accept(2, new Uint8Array(31)), {
      name: 'RangeError',
      message: /cv must be a 32-byte chaining value, got 31/,
    });
    // The stack underneath refuses a root of a single subtree: the whole input is hashed directly.
    assert.throws(() => new ChainingValueStack().push(cv, 0, 4 * KiB).digest(), {
      name: 'RangeError',
      message: /at least two subtrees/,
    });
  });
});
