// The browser benchmark's stages as the page shows them, checked in Node: the pool stage keeps
// going when one row's reads fail, the tasks table says why a row has no number, the progress
// never goes back, the chart keeps its labels inside. No timing is asserted.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';

import { blake3, ready } from '@blake3-web/core';

import type { BatchResult } from '../src/batch-measure.ts';
import { poolRows, type BlobReaders, type PoolLike } from '../src/browser-run.ts';
import { progressPlan, type Progress } from '../src/progress.ts';
import { runRounds } from '../src/run-rounds.ts';
import { SIZES } from '../src/sizes.ts';
import { renderChart } from '../src/svg-chart.ts';
import { taskGroups } from '../src/task-groups.ts';
import type { TaskRow } from '../src/task-row.ts';

test('pool stage: a row whose reads fail is skipped with the reason, a wrong digest is never timed, the rest are measured', async () => {
  await ready();
  const rounds = 3;
  let started = 0;
  let ended = 0;
  let readerRounds = 0;
  const createPool = (size: number): PoolLike => {
    started++;
    let calls = 0;
    return {
      async hashBlob(blob) {
        calls++;
        const digest = blake3(new Uint8Array(await blob.arrayBuffer()));
        // Each pool's first call is the round's warm-up on a small Blob.
        if (size === 2 && started > 3 && calls > 1) throw new DOMException('network error', 'NotReadableError');
        if (size === 3) digest[0] ^= 1;
        return digest;
      },
      terminate: () => void ended++,
    };
  };
  const startReaders = async (): Promise<BlobReaders> => {
    readerRounds++;
    return { label: 'read only', readAll: async (b) => void (await b.arrayBuffer()), terminate: () => undefined };
  };
  const rows = await poolRows({ createPool, sizes: [1, 2, 3], startReaders, bytes: 1 << 20, rounds }, () => undefined);
  const byId = new Map(rows.map((r) => [r.id, r]));
  assert.deepEqual([...byId.keys()], ['read', 'pool-1', 'pool-2', 'pool-3']);
  assert.equal(byId.get('read')!.samples.length, rounds);
  assert.equal(byId.get('pool-1')!.samples.length, rounds);
  assert.ok(byId.get('pool-1')!.median > 0);
  assert.match(byId.get('pool-2')!.skipped ?? '', /^NotReadableError: network error$/);
  assert.ok(Number.isNaN(byId.get('pool-2')!.median));
  assert.match(byId.get('pool-3')!.skipped ?? '', /^wrong output: /);
  assert.deepEqual(byId.get('pool-3')!.samples, []);
  // Workers live one round: every pool started is ended, and a skipped row starts none after.
  assert.equal(started, ended);
  assert.equal(started, 3 + 2 + 1);
  assert.equal(readerRounds, rounds);
});

test('tasks table: grouped, ratios within a group, a reason for every row without a number, no NaN', () => {
  const row = (id: string, label: string, median: number | null, skipped?: string): TaskRow =>
    ({ id, label, samples: [], median, ...(skipped ? { skipped } : {}) }) as TaskRow;
  const batch: BatchResult = {
    workload: 'random-4k',
    label: 'random 0..4 KiB',
    count: 4096,
    bytes: 1,
    // As a report comes back through JSON: NaN medians are null.
    rows: [
      row('loop', 'loop of blake3()', 100),
      row('hashMany', 'hashMany', 250),
      row('kernel', '`many` kernel alone', null),
    ],
  };
  const groups = taskGroups({
    pool: {
      blobBytes: 8 << 20,
      rounds: 1,
      rows: [
        row('read', 'read only', 1000),
        row('pool-1', 'pool of 1 worker', 500),
        row('pool-2', 'pool of 2 workers', NaN, 'NotReadableError: network error'),
      ],
    },
    stream: { totalBytes: 4 << 20, chunkBytes: 65536, rounds: 1, rows: [] },
    batch: [batch],
    skipped: [{ stage: 'stream', reason: 'TypeError: boom' }],
  });
  assert.deepEqual(
    groups.map((g) => g.id),
    ['pool', 'stream', 'batch-random-4k'],
  );
  assert.match(groups[0].title, /× the read-only row/);
  assert.deepEqual(
    groups[0].rows.map((r) => [r.mbps, r.ratio, r.note]),
    [
      ['1000', '1.00', ''],
      ['500', '0.50', ''],
      ['–', '–', 'skipped: NotReadableError: network error'],
    ],
  );
  assert.deepEqual(groups[1].rows[0].note, 'skipped: TypeError: boom');
  assert.deepEqual(
    groups[2].rows.map((r) => [r.label, r.ratio]),
    [
      ['loop of blake3()', '1.00'],
      ['hashMany', '2.50'],
      ['many kernel alone', '–'],
    ],
  );
  assert.match(groups[2].rows[2].note, /one length/);
  assert.doesNotMatch(JSON.stringify(groups), /NaN/);
});

test('progress: weighted by stage, never backwards, 1 at the end', () => {
  const seen: Progress[] = [];
  const advance = progressPlan(
    [
      { id: 'a', label: 'A', weight: 3 },
      { id: 'b', label: 'B', weight: 1 },
    ],
    (p) => seen.push(p),
  );
  advance('a', 0.5, 'half');
  advance('a', 0.25);
  advance('b', 0);
  advance('b', 1);
  assert.deepEqual(
    seen.map((p) => [p.step, p.fraction]),
    [
      ['A: half', 0.375],
      ['A', 0.375],
      ['B', 0.75],
      ['B', 1],
    ],
  );
  assert.throws(() => advance('c', 0), RangeError);
});

test('chart: the size labels stay inside the drawing', () => {
  const svg = renderChart([{ label: 'x', points: SIZES.map((s) => [s, 1000] as const) }], { title: 't' });
  const width = Number(/viewBox="0 0 (\d+) /.exec(svg)![1]);
  // 12 px type: no character of a size label is wider than 8 px.
  for (const m of svg.matchAll(/<text x="([\d.]+)" y="[\d.]+" text-anchor="middle">([^<]*(?:B|KiB|MiB))<\/text>/g)) {
    const half = (m[2].length * 8) / 2;
    assert.ok(Number(m[1]) + half <= width, `${m[2]} ends at ${Number(m[1]) + half} of ${width}`);
    assert.ok(Number(m[1]) - half >= 0, `${m[2]} starts at ${Number(m[1]) - half}`);
  }
  assert.match(svg, />16 MiB</);
});

test('runRounds reports its progress in order, ending at 1', async () => {
  const sha = (b: Uint8Array) => new Uint8Array(createHash('sha256').update(b).digest());
  const seen: number[] = [];
  await runRounds({
    candidates: [{ id: 'a', label: 'a', algorithm: 'sha256', oneShot: sha }],
    reference: (_a, input) => sha(input),
    sizes: [64, 1024],
    modes: ['one-shot', 'incremental'],
    rounds: 3,
    targetMs: 1,
    updateSize: 1024,
    onProgress: (f) => seen.push(f),
  });
  assert.ok(seen.length > 3);
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i] >= seen[i - 1], `${seen[i]} after ${seen[i - 1]}`);
  assert.equal(seen.at(-1), 1);
});
