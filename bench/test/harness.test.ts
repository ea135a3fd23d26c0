// The harness's own correctness: a wrong digest never becomes a number, sections are replaced in
// place. No timing is asserted anywhere.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';

import { kernelBatch } from '../src/batch-kernel.ts';
import { batchTable, kernelRatios, measureBatches, type KernelRun } from '../src/batch-measure.ts';
import type { Candidate, Reference } from '../src/candidate.ts';
import { replaceSection } from '../src/doc-section.ts';
import { roundOrder, runRounds } from '../src/run-rounds.ts';
import { splitInput } from '../src/sizes.ts';
import { median, quantile } from '../src/stats.ts';

const sha256 = (b: Uint8Array) => new Uint8Array(createHash('sha256').update(b).digest());
const reference: Reference = (_algorithm, input) => sha256(input);

const good: Candidate = {
  id: 'good',
  label: 'good',
  algorithm: 'sha256',
  oneShot: sha256,
  incremental: (pieces) => {
    const h = createHash('sha256');
    for (const p of pieces) h.update(p);
    return new Uint8Array(h.digest());
  },
};

test('a candidate with a wrong digest or an exception gets no cell', async () => {
  const wrong: Candidate = { id: 'wrong', label: 'wrong', algorithm: 'sha256', oneShot: (b) => sha256(b.subarray(1)) };
  const throws: Candidate = {
    id: 'throws',
    label: 'throws',
    algorithm: 'sha256',
    oneShot: sha256,
    incremental: () => {
      throw new RangeError('no');
    },
  };
  const r = await runRounds({
    candidates: [good, wrong, throws],
    reference,
    sizes: [64, 3000],
    modes: ['one-shot', 'incremental'],
    rounds: 2,
    targetMs: 1,
    updateSize: 1024,
  });
  const cells = r.cells.map((c) => `${c.mode}/${c.candidate}/${c.size}`).sort();
  assert.deepEqual(cells, [
    'incremental/good/3000',
    'incremental/good/64',
    'one-shot/good/3000',
    'one-shot/good/64',
    'one-shot/throws/3000',
    'one-shot/throws/64',
  ]);
  for (const c of r.cells) assert.equal(c.samples.length, 2);
  const failed = r.verifications
    .filter((v) => !v.ok)
    .map((v) => `${v.mode}/${v.candidate}/${v.size}`)
    .sort();
  assert.deepEqual(failed, [
    'incremental/throws/3000',
    'incremental/throws/64',
    'one-shot/wrong/3000',
    'one-shot/wrong/64',
  ]);
  assert.match(r.verifications.find((v) => v.candidate === 'throws' && !v.ok)?.detail ?? '', /RangeError: no/);
});

test('select runs before every use of a candidate', async () => {
  let selected = 0;
  const c: Candidate = { ...good, id: 'sel', select: () => selected++ };
  await runRounds({
    candidates: [c],
    reference,
    sizes: [64],
    modes: ['one-shot'],
    rounds: 3,
    targetMs: 1,
    updateSize: 64,
  });
  assert.ok(selected >= 1 + 1 + 3, `select ran ${selected} times`);
});

test('splitInput covers the input with views of at most the piece size', () => {
  const input = new Uint8Array(10).map((_, i) => i);
  const pieces = splitInput(input, 4);
  assert.deepEqual(
    pieces.map((p) => [...p]),
    [
      [0, 1, 2, 3],
      [4, 5, 6, 7],
      [8, 9],
    ],
  );
  assert.equal(pieces[1].buffer, input.buffer);
});

test('median and quartiles interpolate', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 2, 3]), 2.5);
  assert.equal(quantile([1, 2, 3, 4, 5], 0.25), 2);
});

test('replaceSection rewrites only its own section and appends when absent', () => {
  const doc =
    '# B\n\nintro\n\n<!-- bench:node:start -->\nold\n<!-- bench:node:end -->\n\n<!-- bench:chromium:start -->\nkeep\n<!-- bench:chromium:end -->\n';
  const next = replaceSection(doc, 'node', 'new');
  assert.equal(next, doc.replace('old', 'new'));
  const appended = replaceSection('# B\n', 'pool', 'p');
  assert.equal(appended, '# B\n\n<!-- bench:pool:start -->\np\n<!-- bench:pool:end -->\n');
  assert.throws(() => replaceSection('<!-- bench:node:start -->', 'node', 'x'), /marker/);
});

test('round orders are reproducible permutations that change neighbours', () => {
  const items = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
  const orders = Array.from({ length: 20 }, (_, r) => roundOrder(items, r));
  for (const o of orders) assert.deepEqual([...o].sort(), items);
  assert.deepEqual(roundOrder(items, 3), orders[3]);
  const predecessorsOfA = new Set(orders.map((o) => o[o.indexOf('a') - 1] ?? 'first'));
  assert.ok(predecessorsOfA.size > 3, `a followed only ${[...predecessorsOfA].join(', ')}`);
  assert.ok(new Set(orders.map((o) => o[0])).size > 3);
});

test('batches: a hashMany or hashManyInto that disagrees with blake3() is never timed', async () => {
  const core = await import('@blake3-web/core');
  const opts = { count: 8, rounds: 1, targetMs: 0 };
  const results = await measureBatches(core, opts);
  assert.deepEqual(
    results.map((r) => r.workload),
    ['64', '1k', 'random-4k'],
  );
  for (const r of results) for (const row of r.rows) assert.equal(row.samples.length, 1, `${r.workload} ${row.id}`);
  const wrongMany = {
    ...core,
    hashMany: (xs: Uint8Array[]) => core.hashMany(xs).map((d, i) => (i === 5 ? d.map((b) => b ^ 1) : d)),
  };
  await assert.rejects(measureBatches(wrongMany as typeof core, opts), /hashMany, 64 B, message 5/);
  const wrongInto = {
    ...core,
    hashManyInto: (xs: Uint8Array[], out: Uint8Array) => (core.hashManyInto(xs, out), (out[40] ^= 1)),
  };
  await assert.rejects(measureBatches(wrongInto as unknown as typeof core, opts), /hashManyInto, 64 B, message 1/);
  assert.match(
    batchTable(results),
    /^\| messages \| loop of blake3\(\) \| hashMany \| hashManyInto \|\n.*\n\| 32 x 64 B \|/,
  );
});

test('batches: the kernel alone runs the single-chunk workloads, checked against blake3() first', async () => {
  const core = await import('@blake3-web/core');
  const opts = { count: 8, rounds: 2, targetMs: 0, kernel: kernelBatch };
  const results = await measureBatches(core, opts);
  for (const id of ['kernel', 'kernelCopy']) {
    const samples = results.map((r) => r.rows.find((row) => row.id === id)!.samples.length);
    assert.deepEqual(samples, [2, 2, 0], id);
  }
  assert.match(batchTable(results), /\| 8 x random 0\.\.4 KiB \|.*\| – \| – \|$/);
  assert.match(
    kernelRatios(results),
    /^Against the `many` kernel .*32 x 64 B: `hashMany` [\d.]+x, `hashManyInto` [\d.]+x the kernel alone \(the copy alone takes it to [\d.]+x\), `hashMany` [\d.]+x, .*8 x 1 KiB: /,
  );
  const flip = (k: KernelRun, at: number): KernelRun => ({
    run: k.run,
    digests: () => k.digests().map((d, i) => (i === at ? d.map((b) => b ^ 1) : d)),
  });
  const wrongAlone = (ms: readonly Uint8Array[]) => {
    const k = kernelBatch(ms);
    return k && { alone: flip(k.alone, 3), copying: k.copying };
  };
  await assert.rejects(measureBatches(core, { ...opts, kernel: wrongAlone }), /the kernel alone, 64 B, message 3/);
  const wrongCopying = (ms: readonly Uint8Array[]) => {
    const k = kernelBatch(ms);
    return k && { alone: k.alone, copying: flip(k.copying, 2) };
  };
  await assert.rejects(measureBatches(core, { ...opts, kernel: wrongCopying }), /the kernel copying, 64 B, message 2/);
});
