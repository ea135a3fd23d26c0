#!/usr/bin/env node
// Every test, in order: the formatting and import-graph checks, the public packages as packed
// tarballs (npm publish --dry-run, publint, attw), unit tests (Node), the Go tests
// of the tusd hook, the core, stream and download suites under Deno and Bun, the e2e specs in Chromium, Firefox and WebKit, then the example apps
// built by each bundler. Each step runs even when an earlier one failed, so one run shows
// everything; the summary at the end has counts per runtime and per engine, and the exit status
// is non-zero when anything failed.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { findGo, goEnv } from './go.mjs';
import { playwrightCounts } from './playwright-counts.mjs';
import { env, pnpmBin, root } from './tools.mjs';

const ENGINES = ['chromium', 'firefox', 'webkit'];
const resultsDir = join(root, 'test-results');
const rows = [];
const notes = [];

/** Runs a command with inherited output, also keeping the output for parsing. */
function run(cmd, args, opts = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env: env(), stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    let output = '';
    child.stdout.on('data', (d) => {
      process.stdout.write(d);
      output += d;
    });
    child.stderr.on('data', (d) => {
      process.stderr.write(d);
      output += d;
    });
    child.on('error', (e) => resolve({ status: 127, output: String(e) }));
    child.on('close', (status) => resolve({ status: status ?? 1, output }));
  });
}

function heading(text) {
  console.log(`\n${'='.repeat(8)} ${text} ${'='.repeat(Math.max(8, 70 - text.length))}\n`);
}

async function checks() {
  heading(
    'checks: formatting (Prettier), import graph (dependency-cruiser), tested versions in the support table, doc snippets',
  );
  for (const [name, script] of [
    ['format (prettier)', 'check:format'],
    ['imports (dependency-cruiser)', 'check:imports'],
    ['support table (docs/support.md)', 'check:support'],
    ['doc snippets (type-check, run)', 'check:snippets'],
  ]) {
    const started = Date.now();
    const { status } = await run(pnpmBin, ['run', script]);
    const seconds = (Date.now() - started) / 1000;
    rows.push({
      name,
      passed: status === 0 ? 1 : 0,
      failed: status === 0 ? 0 : 1,
      skipped: 0,
      seconds,
      exitStatus: status,
    });
  }
}

async function publishChecks() {
  heading('packages as published: npm publish --dry-run, publint, attw on each packed tarball');
  const started = Date.now();
  const { status, output } = await run(process.execPath, [join(root, 'scripts/check-packages.mjs')]);
  const [, passed = '0', failed = '0'] = output.match(/^(\d+) passed, (\d+) failed$/m) ?? [];
  rows.push({
    name: 'packages (publish checks)',
    passed: Number(passed),
    failed: Number(failed),
    skipped: 0,
    seconds: (Date.now() - started) / 1000,
    exitStatus: Number(passed) === 0 ? status || 1 : status,
  });
}

async function unitTests() {
  heading('unit tests (Node)');
  const started = Date.now();
  const { status, output } = await run(pnpmBin, ['run', 'test:unit']);
  // node:test's closing lines, one block per package.
  const sum = (label) =>
    [...output.matchAll(new RegExp(`ℹ ${label} (\\d+)`, 'g'))].reduce((n, m) => n + Number(m[1]), 0);
  rows.push({
    name: `node ${process.versions.node} (unit)`,
    passed: sum('pass'),
    failed: sum('fail') + sum('cancelled'),
    skipped: sum('skipped') + sum('todo'),
    seconds: (Date.now() - started) / 1000,
    exitStatus: status,
  });
  const backends = [...new Set([...output.matchAll(/\[(wasm-simd|js)\]/g)].map((m) => m[1]))];
  if (backends.length > 0) notes.push(`node: core backends tested: ${backends.join(', ')}`);
}

async function goTests() {
  heading('Go tests (go/tusd-blake3, the tusd hook)');
  const go = findGo();
  if (go === undefined) {
    rows.push({ name: 'go (tusd hook)', passed: 0, failed: 0, skipped: 0, seconds: 0, exitStatus: 127 });
    notes.push('go: not found (set GO to the go command)');
    return;
  }
  const started = Date.now();
  const { status, output } = await run(go, ['test', '-count=1', '-v', './...'], {
    cwd: join(root, 'go/tusd-blake3'),
    env: goEnv(env()),
  });
  // go test -v prints one line per test and subtest: "--- PASS: Name (0.00s)".
  const count = (word) => [...output.matchAll(new RegExp(`^\\s*--- ${word}: `, 'gm'))].length;
  rows.push({
    name: 'go (tusd hook)',
    passed: count('PASS'),
    failed: count('FAIL'),
    skipped: count('SKIP'),
    seconds: (Date.now() - started) / 1000,
    // A build that failed runs no test: that is a failure, not a pass.
    exitStatus: count('PASS') === 0 ? status || 1 : status,
  });
}

async function runtimes() {
  heading('core, stream and download tests under Deno and Bun');
  const report = join(resultsDir, 'runtimes.json');
  rmSync(report, { force: true });
  const { status } = await run(process.execPath, [join(root, 'scripts/test-runtimes.mjs')]);
  if (!existsSync(report)) {
    rows.push({ name: 'deno, bun', passed: 0, failed: 0, skipped: 0, seconds: 0, exitStatus: status || 1 });
    return;
  }
  for (const r of JSON.parse(readFileSync(report, 'utf8'))) {
    rows.push({ ...r, exitStatus: r.ok ? 0 : r.exitStatus || 1 });
    if (r.backends.length > 0) notes.push(`${r.name}: backends tested: ${r.backends.join(', ')}`);
    for (const e of r.excluded) notes.push(`${r.name}: excluded ${e.file}: ${e.reason}`);
    for (const f of r.failures) notes.push(`${r.name}: FAILED ${f}`);
  }
}

async function e2e() {
  heading('e2e: Chromium, Firefox, WebKit');
  // Playwright strips types without checking them: the specs and fixtures get tsc first.
  const typecheck = await run(join(root, 'node_modules/.bin/tsc'), ['-p', 'e2e/tsconfig.json']);
  if (typecheck.status !== 0)
    rows.push({ name: 'e2e typecheck', passed: 0, failed: 0, skipped: 0, seconds: 0, exitStatus: typecheck.status });
  const report = join(resultsDir, 'e2e-report.json');
  rmSync(report, { force: true });
  const started = Date.now();
  const { status } = await run(join(root, 'node_modules/.bin/playwright'), ['test']);
  const wall = (Date.now() - started) / 1000;
  if (!existsSync(report)) {
    rows.push({ name: 'e2e', passed: 0, failed: 0, skipped: 0, seconds: wall, exitStatus: status || 1 });
    return;
  }
  const json = JSON.parse(readFileSync(report, 'utf8'));
  const counts = playwrightCounts(json);
  for (const engine of ENGINES) {
    const c = counts.get(engine) ?? { passed: 0, failed: 0, skipped: 0, seconds: 0, skipReasons: new Map() };
    // An engine that ran nothing has not been tested: that is a failure, not a pass.
    const ranNothing = c.passed === 0;
    if (ranNothing) notes.push(`${engine}: no test passed`);
    rows.push({ name: engine, ...c, exitStatus: ranNothing ? 1 : c.failed > 0 ? status || 1 : 0 });
    if (c.backends?.size) notes.push(`${engine}: core backends tested: ${[...c.backends].join(', ')}`);
    for (const [reason, n] of c.skipReasons) notes.push(`${engine}: ${n} skipped: ${reason}`);
    for (const f of c.failures ?? []) notes.push(`${engine}: FAILED ${f}`);
  }
  for (const e of json.errors ?? []) notes.push(`e2e error outside tests: ${e.message?.split('\n')[0]}`);
  if (status !== 0 && rows.slice(-ENGINES.length).every((r) => r.exitStatus === 0)) {
    rows.push({ name: 'e2e run', passed: 0, failed: 0, skipped: 0, seconds: wall, exitStatus: status });
  }
  notes.push(`e2e wall time ${wall.toFixed(1)} s (per-engine times are summed test durations, two workers)`);
}

async function examples() {
  heading(
    "examples from packed tarballs: each bundler's app, the READMEs' first snippets, in Chromium and Firefox; the CLI and the tus server",
  );
  const report = join(resultsDir, 'consumers-report.json');
  rmSync(report, { force: true });
  const started = Date.now();
  const { status } = await run(join(root, 'node_modules/.bin/playwright'), [
    'test',
    '-c',
    'e2e/consumers/playwright.config.ts',
  ]);
  const seconds = (Date.now() - started) / 1000;
  const counts = existsSync(report) ? [...playwrightCounts(JSON.parse(readFileSync(report, 'utf8'))).entries()] : [];
  const sum = (k) => counts.reduce((n, [, c]) => n + c[k], 0);
  const passed = sum('passed');
  rows.push({
    name: 'examples (bundlers)',
    passed,
    failed: sum('failed'),
    skipped: sum('skipped'),
    seconds,
    exitStatus: passed === 0 ? status || 1 : status,
  });
  for (const [engine, c] of counts) for (const f of c.failures) notes.push(`examples ${engine}: FAILED ${f}`);
  notes.push(`examples wall time ${seconds.toFixed(1)} s (install, build and serve included)`);
}

const started = Date.now();
await checks();
await publishChecks();
await unitTests();
await goTests();
await runtimes();
await e2e();
await examples();

heading('summary');
const pad = (s, n) => String(s).padEnd(n);
const num = (s, n) => String(s).padStart(n);
console.log(`${pad('', 28)}${num('passed', 8)}${num('failed', 8)}${num('skipped', 9)}${num('time', 10)}`);
for (const r of rows) {
  const flag = r.exitStatus === 0 ? '' : `  FAILED (exit status ${r.exitStatus})`;
  console.log(
    `${pad(r.name, 28)}${num(r.passed, 8)}${num(r.failed, 8)}${num(r.skipped, 9)}${num(`${r.seconds.toFixed(1)} s`, 10)}${flag}`,
  );
}
for (const n of notes) console.log(`  ${n}`);
const total = (k) => rows.reduce((n, r) => n + r[k], 0);
const failed = rows.some((r) => r.exitStatus !== 0 || r.failed > 0);
console.log(`\nall tests took ${((Date.now() - started) / 1000).toFixed(0)} s`);
console.log(`total: ${total('passed')} passed, ${total('failed')} failed, ${total('skipped')} skipped`);
process.exit(failed ? 1 : 0);
