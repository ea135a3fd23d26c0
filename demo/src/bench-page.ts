// The benchmark page: runs bench/src's browser benchmark here, drawing the tables and the chart
// after every round. `?quick=1` ticks "quick", `?auto=1` starts at once (for automated runs,
// which read the outcome from <html data-bench-state> and `blake3Bench.report`).
import * as stream from '@blake3-web/stream';

import type { BrowserBenchReport } from '../../bench/src/browser-report.ts';
import { runBrowserBench } from '../../bench/src/browser-run.ts';
import type { CallStyle } from '../../bench/src/candidate.ts';
import type { Cell } from '../../bench/src/run-rounds.ts';
import type { Progress } from '../../bench/src/progress.ts';
import { formatSize } from '../../bench/src/sizes.ts';
import { median } from '../../bench/src/stats.ts';
import { renderChart } from '../../bench/src/svg-chart.ts';
import './bench-page.css';
import { sizedPool } from './pool.ts';
import { startReadOnlyWorkers } from './read-ceiling.ts';
import { formatMbps, taskGroups } from '../../bench/src/task-groups.ts';

type BenchState = 'idle' | 'running' | 'done' | 'error';

type PageReport = BrowserBenchReport;

declare global {
  var blake3Bench: { state: BenchState; report?: PageReport; error?: string } | undefined;
}

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const params = new URLSearchParams(location.search);
const quickBox = $<HTMLInputElement>('quick');
const runButton = $<HTMLButtonElement>('run');
const exportButton = $<HTMLButtonElement>('export');
const status = $<HTMLElement>('bench-status');
const logBox = $<HTMLElement>('bench-log');
const progressBar = $<HTMLProgressElement>('bench-progress');
const progressText = $<HTMLElement>('bench-percent');
quickBox.checked = params.get('quick') === '1';
globalThis.blake3Bench = { state: 'idle' };

function setState(state: BenchState, text: string): void {
  globalThis.blake3Bench!.state = state;
  document.documentElement.dataset.benchState = state;
  status.textContent = text;
}

function log(line: string): void {
  logBox.textContent += `${line}\n`;
}

/** The bar and the status line: the step under way and how much of the run is done. */
function showProgress(p: Progress): void {
  const percent = Math.floor(p.fraction * 100);
  progressBar.value = p.fraction;
  progressBar.setAttribute('aria-valuetext', `${percent}%: ${p.step}`);
  progressText.textContent = `${percent}%`;
  status.textContent = `${p.step}…`;
}

/** Median of the samples so far: the page redraws while rounds are still coming in. */
function liveMedian(cell: Cell): number {
  return cell.samples.length ? median(cell.samples) : Number.NaN;
}

/** A throughput table: the implementation, then MB/s under one header spanning the sizes. */
function fillTable(table: HTMLTableElement, sizes: readonly number[], rows: string[][]): void {
  const thead = document.createElement('thead');
  const th = (text: string, scope: string, span?: [number, number]) => {
    const cell = document.createElement('th');
    cell.scope = scope;
    cell.textContent = text;
    if (span) [cell.rowSpan, cell.colSpan] = span;
    return cell;
  };
  thead
    .insertRow()
    .append(th('implementation', 'col', [2, 1]), th('MB/s by input size', 'colgroup', [1, sizes.length]));
  thead.insertRow().append(...sizes.map((s) => th(formatSize(s), 'col')));
  const tbody = document.createElement('tbody');
  for (const r of rows) {
    const row = tbody.insertRow();
    r.forEach((text, i) => {
      const cell = i === 0 ? document.createElement('th') : row.insertCell();
      if (i === 0) (cell as HTMLTableCellElement).scope = 'row';
      cell.textContent = text;
      row.append(cell);
    });
  }
  table.replaceChildren(thead, tbody);
}

function drawCells(report: Pick<BrowserBenchReport, 'candidates' | 'config'>, cells: readonly Cell[]): void {
  const sizes = report.config.sizes;
  for (const mode of ['one-shot', 'incremental'] as CallStyle[]) {
    const rows = report.candidates
      .filter((c) => cells.some((x) => x.mode === mode && x.candidate === c.id))
      .map((c) => [
        c.label,
        ...sizes.map((s) => {
          const cell = cells.find((x) => x.mode === mode && x.candidate === c.id && x.size === s);
          return cell ? formatMbps(liveMedian(cell)) : '–';
        }),
      ]);
    fillTable($(`table-${mode}`), sizes, rows);
  }
  const series = report.candidates
    .map((c) => ({
      label: c.label,
      points: cells
        .filter((x) => x.mode === 'one-shot' && x.candidate === c.id && x.samples.length > 0)
        .map((x) => [x.size, liveMedian(x)] as const),
    }))
    .filter((s) => s.points.length > 0);
  $('chart').innerHTML = renderChart(series, { title: `One-shot MB/s by input size, ${browserName()}` });
}

/** The pool, stream and batch rows, one tbody per group under a header row saying what its ratio divides by. */
function drawTasks(report: PageReport): void {
  const table = $<HTMLTableElement>('table-tasks');
  const thead = document.createElement('thead');
  const head = thead.insertRow();
  for (const h of ['case', 'MB/s', '× first row of its group', 'note']) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = h;
    head.append(th);
  }
  const bodies = taskGroups(report).map((g) => {
    const tbody = document.createElement('tbody');
    const th = document.createElement('th');
    th.scope = 'rowgroup';
    th.colSpan = 4;
    th.className = 'group';
    th.textContent = g.title;
    tbody.insertRow().append(th);
    for (const r of g.rows) {
      const row = tbody.insertRow();
      if (r.note) row.className = 'skipped';
      const name = document.createElement('th');
      name.scope = 'row';
      name.textContent = r.label;
      row.append(name);
      for (const text of [r.mbps, r.ratio]) row.insertCell().textContent = text;
      const note = row.insertCell();
      note.className = 'note';
      note.textContent = r.note;
    }
    return tbody;
  });
  table.replaceChildren(thead, ...bodies);
}

function browserName(): string {
  const ua = navigator.userAgent;
  const firefox = /Firefox\/(\S+)/.exec(ua);
  if (firefox) return `Firefox ${firefox[1]}`;
  const chrome = /Chrom(?:e|ium)\/(\S+)/.exec(ua);
  if (chrome) return `Chromium ${chrome[1]}`;
  const webkit = /AppleWebKit\/(\S+)/.exec(ua);
  return webkit ? `WebKit ${webkit[1]}` : 'this browser';
}

function exportJson(report: PageReport): void {
  const blob = new Blob([JSON.stringify(report, null, 1)], { type: 'application/json' });
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = `blake3-web-bench-${report.date.slice(0, 19).replace(/:/g, '-')}.json`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}

async function run(): Promise<void> {
  runButton.disabled = true;
  exportButton.disabled = true;
  logBox.textContent = '';
  setState('running', 'starting…');
  progressBar.value = 0;
  progressText.textContent = '0%';
  const quick = quickBox.checked;
  const numberParam = (name: string) => (params.has(name) ? Number(params.get(name)) : undefined);
  try {
    let shape: Pick<BrowserBenchReport, 'candidates' | 'config'> | undefined;
    const report = await runBrowserBench({
      quick,
      rounds: numberParam('rounds'),
      targetMs: numberParam('targetMs'),
      poolBytes: numberParam('poolMiB') === undefined ? undefined : numberParam('poolMiB')! << 20,
      // Pools up to 4 (the pool's default on 4 reported cores) beside workers that only read.
      poolSizes: [1, 2, 3, 4],
      startReaders: startReadOnlyWorkers,
      onProgress: showProgress,
      peers: __BENCH_PEERS__,
      stream,
      createPool: sizedPool,
      log,
      onRound: (cells) => shape && drawCells(shape, cells),
      onPartial: (r) => {
        shape = r;
        drawCells(r, r.cells);
        drawTasks(r);
      },
    });
    drawCells(report, report.cells);
    drawTasks(report);
    showProgress({ step: 'done', fraction: 1 });
    globalThis.blake3Bench!.report = report;
    exportButton.disabled = false;
    const failures = report.verifications.filter((v) => !v.ok).length;
    const skipped = [
      ...report.pool.rows.filter((r) => r.skipped !== undefined).map((r) => r.label),
      ...(report.skipped ?? []).map((s) => `the ${s.stage} stage`),
    ];
    setState(
      'done',
      `Done in ${(report.elapsedMs / 1000).toFixed(0)} s` +
        (failures ? `; ${failures} cells gave wrong output and were not measured (see the log)` : '') +
        (skipped.length ? `; skipped (the reason is in its row): ${skipped.join(', ')}` : '') +
        '.',
    );
  } catch (err) {
    const e = err as Error;
    globalThis.blake3Bench!.error = `${e.name}: ${e.message}`;
    setState('error', `The benchmark stopped: ${e.name}: ${e.message}`);
  } finally {
    runButton.disabled = false;
  }
}

$('bench-env').textContent =
  `${browserName()} · ${navigator.hardwareConcurrency} logical cores reported · ` +
  (globalThis.crossOriginIsolated
    ? 'cross-origin isolated (fine timers)'
    : 'not cross-origin isolated: timers are coarse, numbers noisier');
$('bench-form').addEventListener('submit', (e) => {
  e.preventDefault();
  void run();
});
exportButton.addEventListener(
  'click',
  () => globalThis.blake3Bench?.report && exportJson(globalThis.blake3Bench.report),
);
if (params.get('auto') === '1') void run();
