#!/usr/bin/env node
// Runs the node:test suites of the packages that claim Deno and Bun (core, stream, download) under those
// runtimes, and writes per-runtime, per-suite counts to test-results/runtimes.json.
//   node scripts/test-runtimes.mjs [deno|bun ...]
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { baoPath } from '../packages/stream/setup/bao-setup.mjs';
import { junitCounts } from './junit-counts.mjs';
import { env, root } from './tools.mjs';

/** Packages whose test suites run under every runtime. */
const SUITES = ['core', 'stream', 'download'];
const resultsDir = join(root, 'test-results');
const bin = join(root, 'node_modules/.bin');
const python = process.env.PYTHON ?? 'python3';

/**
 * Test files a runtime cannot run, each with the reason, printed on every run. Everything else
 * in the suites runs everywhere.
 * @type {{ runtime: string, suite: string, file: string, reason: string }[]}
 */
const EXCLUDED = [
  {
    runtime: 'deno',
    suite: 'core',
    file: 'test/wasm-backend.test.ts',
    reason:
      "it starts fresh processes with Node's command line (process.execPath --input-type=module -e), " +
      'which the deno binary rejects; Bun accepts it',
  },
];

const RUNTIMES = {
  deno: {
    version: () => version(join(bin, 'deno'), ['--version']),
    // Deno runs node:test describe/it natively. --no-check: tsc already type-checks the tests
    // with the project's TypeScript; this run is about the runtime's behavior. --sloppy-imports:
    // tests import sources as `../src/x.js` (the NodeNext spelling), which Deno maps to x.ts
    // only when asked. The differential tests write a temporary file and spawn the Python
    // reference implementation and the bao CLI; the fetch tests serve on the loopback; the
    // download's resume test starts a Deno child (the binary itself) and kills it.
    args: (report, files) => [
      join(bin, 'deno'),
      'test',
      '--no-check',
      '--sloppy-imports',
      '--allow-read',
      '--allow-env',
      `--allow-write=${tmpdir()}`,
      `--allow-run=${python},${baoPath},${denoBinary()}`,
      '--allow-net=127.0.0.1',
      `--junit-path=${report}`,
      ...files,
    ],
  },
  bun: {
    version: () => version(join(bin, 'bun'), ['--version']),
    // bun test maps node:test describe/it/before onto its own runner. Its 5 s per test, which
    // node:test does not have, fails the heavier differential tests on a loaded machine; a
    // hang still fails, after a minute.
    args: (report, files) => [
      join(bin, 'bun'),
      'test',
      '--timeout=60000',
      '--reporter=junit',
      `--reporter-outfile=${report}`,
      ...files.map((f) => `./${f}`),
    ],
  },
};

/** The deno binary behind the npm shim: what `process.execPath` is inside a Deno test. */
function denoBinary() {
  const r = spawnSync(join(bin, 'deno'), ['eval', 'console.log(Deno.execPath())'], { encoding: 'utf8', env: env() });
  return r.status === 0 ? r.stdout.trim() : join(bin, 'deno');
}

function version(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', env: env() });
  return r.status === 0
    ? (/\d+\.\d+\.\d+/.exec(r.stdout)?.[0] ?? r.stdout.trim())
    : 'not installed (run node scripts/bootstrap.mjs)';
}

export function runRuntime(name, suite) {
  const runtime = RUNTIMES[name];
  const suiteDir = join(root, 'packages', suite);
  const files = readdirSync(join(suiteDir, 'test'))
    .filter((f) => f.endsWith('.test.ts'))
    .sort()
    .map((f) => `test/${f}`);
  const mine = EXCLUDED.filter((e) => e.runtime === name && e.suite === suite);
  const excluded = mine.filter((e) => files.includes(e.file));
  for (const e of excluded) console.log(`${name}: not running packages/${suite}/${e.file}: ${e.reason}`);
  for (const e of mine.filter((e) => !files.includes(e.file))) {
    console.log(
      `${name}: the exclusion of packages/${suite}/${e.file} is stale (no such test file): remove it from scripts/test-runtimes.mjs`,
    );
  }
  const run = files.filter((f) => !excluded.some((e) => e.file === f));
  const report = join(resultsDir, `runtime-${name}-${suite}.xml`);
  rmSync(report, { force: true });
  const ver = runtime.version();
  console.log(`\n=== ${name} (${ver}): ${run.length} test files of packages/${suite}/test ===`);
  const [cmd, ...args] = runtime.args(report, run);
  const started = Date.now();
  const r = spawnSync(cmd, args, { cwd: suiteDir, stdio: 'inherit', env: env() });
  const seconds = (Date.now() - started) / 1000;
  let counts;
  try {
    counts = junitCounts(readFileSync(report, 'utf8'));
  } catch {
    counts = { passed: 0, failed: 0, skipped: 0, failures: [], backends: [] };
  }
  const status = r.status ?? 1;
  // A crash or a failed load can leave no failing test case behind: the exit status decides.
  const ok = status === 0 && counts.failed === 0 && counts.passed > 0;
  return { name: `${name} ${ver} (${suite})`, ...counts, excluded, exitStatus: status, ok, seconds };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const names = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(RUNTIMES);
  const unknown = names.filter((n) => !(n in RUNTIMES));
  if (unknown.length > 0) {
    console.error(`unknown runtime ${unknown.join(', ')}; known: ${Object.keys(RUNTIMES).join(', ')}`);
    process.exit(2);
  }
  mkdirSync(resultsDir, { recursive: true });
  const results = names.flatMap((name) => SUITES.map((suite) => runRuntime(name, suite)));
  writeFileSync(join(resultsDir, 'runtimes.json'), JSON.stringify(results, null, 2) + '\n');
  for (const r of results) {
    console.log(
      `${r.name}: ${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped` +
        (r.ok ? '' : ` (exit status ${r.exitStatus})`),
    );
  }
  process.exit(results.every((r) => r.ok) ? 0 : 1);
}
