// `pnpm bench:browsers`: opens the demo's benchmark page (demo/dist/bench.html, served with
// cross-origin isolation by the e2e fixture server) in Chromium and Firefox through Playwright
// and in WebKitGTK through WebKitWebDriver, lets it run, and writes per engine: the raw JSON to
// bench/results/, a chart to docs/bench-<engine>.svg and a section of docs/BENCHMARKS.md.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { chromium, firefox, type Browser } from 'playwright-core';

import { startFixtureServer } from '../../servers/fixture-server.ts';
import { startWebKitSession } from '../../servers/webkit-session.ts';
import { LAUNCH_OPTIONS } from '../../scripts/browser-paths.mjs';
import type { BrowserBenchReport } from './browser-report.ts';
import { browserSection } from './browser-section.ts';
import { coreRevision } from './core-revision.ts';
import { replaceSection } from './doc-section.ts';
import { describeMachine } from './machine-node.ts';
import { scriptArgs } from './script-args.ts';
import { renderChart } from './svg-chart.ts';
import { benchDir, repoRoot, shown } from './write-results.ts';

type Engine = 'chromium' | 'firefox' | 'webkit';
const ENGINES: readonly Engine[] = ['chromium', 'firefox', 'webkit'];
const ENGINE_NAMES: Record<Engine, (version: string) => string> = {
  chromium: (v) => `Chromium ${v} (V8)`,
  firefox: (v) => `Firefox ESR ${v} (SpiderMonkey)`,
  webkit: (v) => `WebKitGTK ${v} (JavaScriptCore)`,
};

const args = scriptArgs({
  quick: { type: 'boolean', default: false },
  engines: { type: 'string', default: ENGINES.join(',') },
  rounds: { type: 'string' },
  'no-write': { type: 'boolean', default: false },
  render: { type: 'boolean', default: false },
});
const engines = args.engines!.split(',').map((e) => e.trim()) as Engine[];
for (const e of engines)
  if (!ENGINES.includes(e)) throw new RangeError(`--engines: unknown engine ${e} (known: ${ENGINES.join(', ')})`);
const quick = args.quick ?? false;
// Quick runs are a look only: they never overwrite the committed results.
const write = !quick && !(args['no-write'] ?? false);

/** What bench/results/browser-<engine>-<date>.json holds. */
interface SavedRun {
  engine: string;
  machine: ReturnType<typeof describeMachine>;
  core: ReturnType<typeof coreRevision>;
  report: BrowserBenchReport;
}

const machine = describeMachine();
const core = coreRevision(repoRoot);
const docFile = join(repoRoot, 'docs', 'BENCHMARKS.md');

/** Chart and section of one engine's run; the section is written into the doc right away. */
function writeOutputs(
  engine: Engine,
  engineName: string,
  report: BrowserBenchReport,
  saved: { machine: typeof machine; core: typeof core },
): string {
  const section = browserSection(report, {
    engine: engineName,
    machine: saved.machine,
    core: saved.core,
    resultsLink: `../bench/results/browser-${engine}-${report.date.slice(0, 10)}.json`,
    chartLink: `bench-${engine}.svg`,
  });
  if (write) {
    writeFileSync(join(repoRoot, 'docs', `bench-${engine}.svg`), chartFor(engineName, report));
    // Re-read right before writing: other benchmark scripts rewrite their own sections too.
    writeFileSync(docFile, replaceSection(readFileSync(docFile, 'utf8'), `browser-${engine}`, section));
  }
  return section;
}

// --render: redraw the charts and sections from the newest saved results, measuring nothing
// (for changes to the tables' format).
if (args.render) {
  for (const engine of engines) {
    const dir = join(benchDir, 'results');
    const newest = readdirSync(dir)
      .filter((f) => f.startsWith(`browser-${engine}-`) && f.endsWith('.json'))
      .sort()
      .pop();
    if (!newest) throw new Error(`no saved results for ${engine} in ${shown(dir)}`);
    const saved = JSON.parse(readFileSync(join(dir, newest), 'utf8')) as SavedRun;
    writeOutputs(engine, saved.engine, saved.report, saved);
    console.log(`rendered ${newest}`);
  }
  process.exit(0);
}

if (!existsSync(join(repoRoot, 'demo', 'dist', 'bench.html'))) {
  throw new Error(
    'demo/dist/bench.html is missing: run `node scripts/pnpm.mjs run build` first (the root bench:browsers script does)',
  );
}

/** What every engine's page is polled for: progress lines and, at the end, the report. */
interface Poll {
  state: string | undefined;
  log: string;
  error: string | undefined;
}
const pollScript = () => ({
  state: document.documentElement.dataset.benchState,
  log: document.getElementById('bench-log')?.textContent ?? '',
  error: globalThis.blake3Bench?.error,
});

/** Polls until the page is done, echoing its log; an engine's run takes a few minutes. */
async function follow(engine: Engine, poll: () => Promise<Poll>): Promise<void> {
  let shownChars = 0;
  const deadline = Date.now() + 30 * 60_000;
  for (;;) {
    const p = await poll();
    const fresh = p.log.slice(shownChars);
    shownChars = p.log.length;
    for (const line of fresh.split('\n').filter(Boolean)) console.log(`[${engine}] ${line}`);
    if (p.state === 'done') return;
    if (p.state === 'error') throw new Error(`${engine}: the benchmark page failed: ${p.error}`);
    if (Date.now() > deadline) throw new Error(`${engine}: no result after 30 minutes`);
    await new Promise((r) => setTimeout(r, 2000));
  }
}

async function inPlaywright(
  engine: 'chromium' | 'firefox',
  url: string,
): Promise<{ version: string; report: BrowserBenchReport }> {
  const browser: Browser = await { chromium, firefox }[engine].launch(LAUNCH_OPTIONS[engine]);
  try {
    const page = await browser.newPage();
    page.on('pageerror', (e) => console.error(`[${engine}] page error: ${e.message}`));
    await page.goto(url);
    await follow(engine, () => page.evaluate(pollScript));
    const report = await page.evaluate(() => globalThis.blake3Bench!.report!);
    return { version: browser.version(), report };
  } finally {
    await browser.close();
  }
}

async function inWebKit(url: string): Promise<{ version: string; report: BrowserBenchReport }> {
  const session = await startWebKitSession();
  try {
    const { driver } = session;
    const caps = await driver.getCapabilities();
    await driver.get(url);
    const run = <T>(fn: () => T) => driver.executeScript(`return (${fn.toString()})();`) as Promise<T>;
    await follow('webkit', () => run(pollScript));
    const report = await run(() => globalThis.blake3Bench!.report!);
    return { version: String(caps.get('browserVersion') ?? 'unknown'), report };
  } finally {
    await session.close();
  }
}

declare global {
  var blake3Bench: { state: string; report?: BrowserBenchReport; error?: string } | undefined;
}

function chartFor(engineName: string, report: BrowserBenchReport): string {
  const series = report.candidates
    .map((c) => ({
      label: c.label,
      points: report.cells
        .filter((x) => x.mode === 'one-shot' && x.candidate === c.id)
        .map((x) => [x.size, x.median] as const),
    }))
    .filter((s) => s.points.length > 0);
  return `${renderChart(series, { title: `One-shot MB/s by input size, ${engineName}` })}\n`;
}

const server = await startFixtureServer();
const query = new URLSearchParams({
  auto: '1',
  ...(quick ? { quick: '1' } : {}),
  ...(args.rounds ? { rounds: args.rounds } : {}),
});
const url = `${server.url}/coi/demo/dist/bench.html?${query}`;
let failed = false;
try {
  // One engine at a time: on 2 cores, two engines at once would measure each other.
  for (const engine of engines) {
    console.log(`\n== ${engine}: ${url}`);
    const { version, report } = engine === 'webkit' ? await inWebKit(url) : await inPlaywright(engine, url);
    const engineName = ENGINE_NAMES[engine](version);
    const bad = report.verifications.filter((v) => !v.ok);
    if (bad.length) {
      failed = true;
      console.error(`${engine}: wrong output from ${bad.map((v) => `${v.candidate} ${v.mode} ${v.size}`).join(', ')}`);
    }
    const resultsFile = join(benchDir, 'results', `browser-${engine}-${report.date.slice(0, 10)}.json`);
    if (write) {
      mkdirSync(join(benchDir, 'results'), { recursive: true });
      const saved: SavedRun = { engine: engineName, machine, core, report };
      writeFileSync(resultsFile, `${JSON.stringify(saved, null, 1)}\n`);
    }
    console.log(`\n${writeOutputs(engine, engineName, report, { machine, core })}\n`);
    if (write)
      console.log(
        `wrote ${shown(resultsFile)}, docs/bench-${engine}.svg and the ${engine} section of docs/BENCHMARKS.md`,
      );
  }
} finally {
  await server.close();
}
if (!write) console.log('results not written (quick run or --no-write)');
if (failed) process.exitCode = 1;
