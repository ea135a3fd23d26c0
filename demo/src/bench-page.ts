// The benchmark page: runs bench/src's browser benchmark here, drawing the tables and the chart
// after every round. `?quick=1` ticks "quick", `?auto=1` starts at once (for automated runs,
// which read the outcome from <html data-bench-state> and `blake3Bench.report`).
import * as stream from '@blake3-web/stream';

import type { BrowserBenchReport } from '../../bench/src/browser-report.ts';
import type { TaskRow } from '../../bench/src/task-row.ts';
import { runBrowserBench } from '../../bench/src/browser-run.ts';
import type { CallStyle } from '../../bench/src/candidate.ts';
import type { Cell } from '../../bench/src/run-rounds.ts';
import { formatSize } from '../../bench/src/sizes.ts';
import { median } from '../../bench/src/stats.ts';
import { renderChart } from '../../bench/src/svg-chart.ts';
import { sizedPool } from './pool.ts';
import { measureReadCeiling, type ReadCeilingReport } from './read-ceiling.ts';

type BenchState = 'idle' | 'running' | 'done' | 'error';

/** The shared benchmark's report plus the page's own pool-against-read-ceiling section. */
type PageReport = BrowserBenchReport & { readCeiling?: ReadCeilingReport };

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
quickBox.checked = params.get('quick') === '1';
globalThis.blake3Bench = { state: 'idle' };

function setState(state: BenchState, text: string): void {
  globalThis.blake3Bench!.state = state;
  document.documentElement.dataset.benchState = state;
  status.textContent = text;
}

function log(line: string): void {
  logBox.textContent += `${line}\n`;
  if (!line.startsWith('round') && !line.startsWith('verified')) status.textContent = line;
}

function formatMbps(v: number): string {
  return !Number.isFinite(v) ? '–' : v >= 100 ? v.toFixed(0) : v.toFixed(1);
}

/** Median of the samples so far: the page redraws while rounds are still coming in. */
function liveMedian(cell: Cell): number {
  return cell.samples.length ? median(cell.samples) : Number.NaN;
}

function fillTable(table: HTMLTableElement, head: string[], rows: string[][]): void {
  const thead = document.createElement('thead');
  const tr = thead.insertRow();
  for (const h of head) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = h;
    tr.append(th);
  }
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
    fillTable($(`table-${mode}`), ['implementation', ...sizes.map((s) => `${formatSize(s)} MB/s`)], rows);
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

function drawTasks(report: PageReport): void {
  const row = (r: TaskRow, base: TaskRow | undefined) => [
    r.label,
    formatMbps(r.median),
    base ? (r.median / base.median).toFixed(2) : '–',
  ];
  const rows = [
    ...report.pool.rows.map((r) => [
      `${formatSize(report.pool.blobBytes)} Blob, ${r.label}`,
      ...row(r, report.pool.rows[0]).slice(1),
    ]),
    ...(report.readCeiling?.rows ?? []).map((r) => [
      `${formatSize(report.readCeiling!.blobBytes)} Blob, ${r.label}`,
      ...row(r, report.readCeiling!.rows[0]).slice(1),
    ]),
    ...report.stream.rows.map((r) => [
      `${formatSize(report.stream.totalBytes)} in 64 KiB chunks, ${r.label}`,
      ...row(r, report.stream.rows[0]).slice(1),
    ]),
    ...(report.batch ?? []).flatMap((b) =>
      b.rows.map((r) => [
        `${b.count} messages of ${b.label}, ${r.label.replaceAll('`', '')}`,
        ...row(r, b.rows[0]).slice(1),
      ]),
    ),
  ];
  fillTable($('table-tasks'), ['case', 'MB/s', '× first row of its group'], rows);
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
  setState('running', 'running…');
  const quick = quickBox.checked;
  const numberParam = (name: string) => (params.has(name) ? Number(params.get(name)) : undefined);
  try {
    let shape: Pick<BrowserBenchReport, 'candidates' | 'config'> | undefined;
    const report = await runBrowserBench({
      quick,
      rounds: numberParam('rounds'),
      targetMs: numberParam('targetMs'),
      poolBytes: numberParam('poolMiB') === undefined ? undefined : numberParam('poolMiB')! << 20,
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
    // A Blob of its own, at most 96 MiB (the size of docs/worker-pool.md's tables): Chromium 156
    // fails reads of in-memory Blobs read over and over ("network error"), the sooner the bigger.
    const ceilingBytes = Math.min(report.pool.blobBytes, 96 << 20);
    log(`pools beside the read ceiling on a ${ceilingBytes >> 20} MiB Blob`);
    // The engine tables stand without these rows: a failed read here is shown, not fatal.
    let readCeiling: ReadCeilingReport | undefined;
    let ceilingError = '';
    try {
      readCeiling = await measureReadCeiling(ceilingBytes, quick ? 1 : report.pool.rounds, log);
    } catch (err) {
      ceilingError = `; the read ceiling failed: ${(err as Error).name}: ${(err as Error).message}`;
      log(`the read ceiling failed: ${(err as Error).name}: ${(err as Error).message}`);
    }
    const full: PageReport = { ...report, readCeiling };
    drawTasks(full);
    globalThis.blake3Bench!.report = full;
    exportButton.disabled = false;
    const failures = report.verifications.filter((v) => !v.ok).length;
    setState(
      'done',
      `Done in ${(report.elapsedMs / 1000).toFixed(0)} s${failures ? `; ${failures} cells gave wrong output and were not measured (see the log)` : ''}${ceilingError}.`,
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
