// The demo's benchmark page in all three engines: a quick sweep completes with every digest
// right, draws the chart and grouped tables with no row left without a number or a reason, ends
// its progress bar at 100%, and its JSON export lists every implementation and the pools beside
// their read ceiling. Times are not checked.
import { expect, test } from '../fixtures/demo-page.ts';

const IMPLEMENTATIONS = [
  'core-wasm-simd',
  'core-js',
  'official-wasm',
  'blake3-jit',
  'hash-wasm',
  'noble',
  'webcrypto-sha256',
];
/** Measured in incremental mode only. */
const INCREMENTAL_ONLY = ['core-reused-hasher'];

test('demo: the benchmark page completes a quick sweep, draws the chart and exports every implementation', async ({
  demoPage,
}) => {
  test.setTimeout(240_000);
  // Served with cross-origin isolation, as the page expects for fine timers.
  await demoPage.goto('/coi/demo/dist/bench.html?quick=1&auto=1');
  await demoPage.waitForFunction(
    () => {
      const s = document.documentElement.dataset.benchState;
      return s === 'done' || s === 'error';
    },
    { timeout: 200_000 },
  );
  const r = await demoPage.evaluate(async () => {
    // Catch what the export button hands the browser to download.
    const captured: Blob[] = [];
    const original = URL.createObjectURL;
    URL.createObjectURL = (b: Blob | MediaSource) => (captured.push(b as Blob), original.call(URL, b));
    const button = document.getElementById('export') as HTMLButtonElement;
    const enabled = !button.disabled;
    button.click();
    URL.createObjectURL = original;
    const exported = captured.length ? JSON.parse(await captured[0].text()) : null;
    return {
      state: document.documentElement.dataset.benchState,
      status: document.getElementById('bench-status')!.textContent,
      enabled,
      exported,
      points: document.querySelectorAll('#chart svg circle.point').length,
      paths: document.querySelectorAll('#chart svg path').length,
      rows: document.querySelectorAll('#table-one-shot tbody tr').length,
      taskRows: document.querySelectorAll('#table-tasks tbody th[scope=row]').length,
      groups: Array.from(document.querySelectorAll('#table-tasks th.group')).map((th) => th.textContent ?? ''),
      tasksText: document.getElementById('table-tasks')!.textContent ?? '',
      unexplained: Array.from(document.querySelectorAll<HTMLTableRowElement>('#table-tasks tbody tr'))
        .filter((tr) => !tr.querySelector('th.group'))
        .filter((tr) => tr.cells[1]?.textContent === '–' && tr.cells[3]?.textContent === '')
        .map((tr) => tr.cells[0].textContent),
      progress: (document.getElementById('bench-progress') as HTMLProgressElement).value,
      percent: document.getElementById('bench-percent')!.textContent,
    };
  });
  expect(r.state, r.status ?? '').toBe('done');
  expect(r.enabled).toBe(true);
  const report = r.exported as {
    candidates: { id: string }[];
    config: { sizes: number[] };
    verifications: { ok: boolean; candidate: string }[];
    cells: { candidate: string; mode: string; size: number; samples: number[] }[];
    pool: { rows: { id: string; samples: number[]; median: number; skipped?: string }[] };
    stream: { rows: { id: string; samples: number[] }[] };
    batch: { workload: string; rows: { id: string; samples: number[] }[] }[];
  };
  const ids = report.candidates.map((c) => c.id);
  // The JS backend exists everywhere; wasm-simd in every engine here (all three have WASM SIMD).
  expect(ids).toEqual([...IMPLEMENTATIONS.slice(0, 2), ...INCREMENTAL_ONLY, ...IMPLEMENTATIONS.slice(2)]);
  for (const id of INCREMENTAL_ONLY) {
    expect(
      report.cells.filter((c) => c.candidate === id && c.mode === 'one-shot'),
      id,
    ).toEqual([]);
    const cells = report.cells.filter((c) => c.candidate === id && c.mode === 'incremental');
    expect(
      cells.map((c) => c.size),
      id,
    ).toEqual(report.config.sizes);
  }
  expect(report.verifications.filter((v) => !v.ok)).toEqual([]);
  for (const id of IMPLEMENTATIONS) {
    const cells = report.cells.filter((c) => c.candidate === id && c.mode === 'one-shot');
    expect(
      cells.map((c) => c.size),
      id,
    ).toEqual(report.config.sizes);
    for (const c of cells) expect(c.samples.length, `${id} ${c.size}`).toBeGreaterThan(0);
  }
  // The pools of 1-4 beside read-only workers on the same Blob, in the same rounds: one row each.
  expect(report.pool.rows.map((p) => p.id)).toEqual(['read', 'pool-1', 'pool-2', 'pool-3', 'pool-4']);
  for (const row of report.pool.rows) {
    expect(row.skipped, row.id).toBeUndefined();
    expect(row.samples.length, row.id).toBeGreaterThan(0);
    expect(row.median, row.id).toBeGreaterThan(0);
  }
  expect(report.stream.rows.map((p) => p.id)).toContain('Blake3Stream');
  expect(r.points).toBe(IMPLEMENTATIONS.length * report.config.sizes.length);
  expect(r.paths).toBe(IMPLEMENTATIONS.length);
  expect(r.rows).toBe(IMPLEMENTATIONS.length);
  expect(report.batch.map((b) => b.workload)).toEqual(['64', '1k', 'random-4k']);
  for (const b of report.batch) {
    expect(
      b.rows.map((x) => x.id),
      b.workload,
    ).toEqual(['loop', 'hashMany', 'hashManyInto', 'kernel', 'kernelCopy', 'sha256']);
    for (const x of b.rows) {
      // The kernel runs only messages of one length.
      const timed = !x.id.startsWith('kernel') || b.workload !== 'random-4k';
      expect(x.samples.length > 0, `${b.workload} ${x.id}`).toBe(timed);
    }
  }
  expect(r.taskRows).toBe(report.pool.rows.length + report.stream.rows.length + 6 * report.batch.length);
  // One group per table part, each saying what its ratios divide by; no NaN anywhere, and a row
  // without a number says why.
  expect(r.groups.length).toBe(2 + report.batch.length);
  for (const g of r.groups) expect(g).toContain('×');
  expect(r.tasksText).not.toContain('NaN');
  expect(r.unexplained).toEqual([]);
  expect(r.progress).toBe(1);
  expect(r.percent).toBe('100%');
  await demoPage.screenshot('bench-page');
});
