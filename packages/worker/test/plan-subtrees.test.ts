import { maxSubtreeLen } from '@blake3-web/core/hazmat';
import { Random, testSeed } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  MIN_SPLIT_SUBTREE_BYTES,
  isSubtreeSize,
  planSubtrees,
  subtreeRange,
  type SubtreePlan,
} from '../src/plan-subtrees.ts';
import { KiB, MiB } from './_helpers.ts';

/** Every range of a plan, checked to tile [0, total) with valid subtrees. */
function checkPlan(plan: SubtreePlan): void {
  let expectedStart = 0;
  for (let i = 0; i < plan.count; i++) {
    const r = subtreeRange(plan, i);
    assert.equal(r.index, i);
    assert.equal(r.start, expectedStart, `subtree ${i} starts where ${i - 1} ended`);
    assert.ok(r.end > r.start, `subtree ${i} is not empty`);
    if (plan.count > 1) {
      // What hashSubtree demands of a subtree that is not the whole input.
      assert.equal(r.start % 1024, 0);
      const max = r.start === 0 ? Infinity : Number(maxSubtreeLen(r.start));
      assert.ok(r.end - r.start <= max, `subtree ${i} of ${r.end - r.start} bytes fits at offset ${r.start}`);
      if (i < plan.count - 1) assert.equal(r.end - r.start, plan.subtreeBytes, 'only the last subtree may be short');
    }
    expectedStart = r.end;
  }
  assert.equal(expectedStart, plan.total, 'the subtrees cover the input');
}

describe('planSubtrees', () => {
  it('cuts large inputs into full-size subtrees and a shorter last one', () => {
    const plan = planSubtrees(100 * MiB + 5, 8 * MiB, 2);
    assert.deepEqual(plan, { total: 100 * MiB + 5, subtreeBytes: 8 * MiB, count: 13 });
    assert.deepEqual(subtreeRange(plan, 12), { index: 12, start: 96 * MiB, end: 100 * MiB + 5 });
    checkPlan(plan);
  });

  it('shrinks subtrees so every worker gets work, down to 1 MiB', () => {
    // 12 MiB on 2 workers: 4 tasks wanted, so 2 MiB subtrees (not 8 + 4).
    assert.deepEqual(planSubtrees(12 * MiB, 8 * MiB, 2), { total: 12 * MiB, subtreeBytes: 2 * MiB, count: 6 });
    assert.deepEqual(planSubtrees(32 * MiB, 8 * MiB, 2), { total: 32 * MiB, subtreeBytes: 8 * MiB, count: 4 });
    assert.deepEqual(planSubtrees(3 * MiB, 8 * MiB, 4), {
      total: 3 * MiB,
      subtreeBytes: MIN_SPLIT_SUBTREE_BYTES,
      count: 3,
    });
    // A small explicit maximum is never exceeded, and the floor follows it down.
    assert.deepEqual(planSubtrees(100 * KiB, 64 * KiB, 3), { total: 100 * KiB, subtreeBytes: 64 * KiB, count: 2 });
  });

  it('hashes an input of one subtree or less as one task', () => {
    for (const total of [0, 1, 1024, 1025, MiB]) {
      const plan = planSubtrees(total, 8 * MiB, 2);
      assert.equal(plan.count, 1, `total ${total}`);
      assert.deepEqual(subtreeRange(plan, 0), { index: 0, start: 0, end: total });
    }
    assert.equal(planSubtrees(MiB + 1, 8 * MiB, 2).count, 2);
    assert.equal(planSubtrees(64 * KiB, 64 * KiB, 1).count, 1);
    assert.equal(planSubtrees(64 * KiB + 1, 64 * KiB, 1).count, 2);
  });

  it('gives valid subtrees for random sizes, maxima and worker counts', () => {
    const rng = new Random(testSeed());
    for (let i = 0; i < 500; i++) {
      const max = 2 ** rng.int(10, 24);
      const total = rng.pick([
        rng.int(0, 4 * max),
        rng.int(0, 300 * max),
        max * rng.int(1, 40) + rng.pick([-1024, -1, 0, 1, 1024]),
      ]);
      const plan = planSubtrees(Math.max(0, total), max, rng.int(1, 8));
      assert.ok(plan.subtreeBytes <= max && isSubtreeSize(plan.subtreeBytes));
      checkPlan(plan);
    }
  });

  it('rejects a subtree size that is not a power of two chunks', () => {
    assert.throws(() => planSubtrees(10, 1000, 1), { name: 'RangeError', message: /maxSubtreeBytes.*1000/ });
    assert.throws(() => planSubtrees(10, 3 * 1024, 1), { name: 'RangeError', message: /power of two/ });
    assert.equal(isSubtreeSize(512), false);
    assert.equal(isSubtreeSize(2 ** 31), false);
    assert.equal(isSubtreeSize(2 ** 20), true);
  });
});
