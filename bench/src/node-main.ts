// `pnpm bench`: measures every implementation in this Node process, saves the raw results under
// bench/results/ and rewrites the Node section of docs/BENCHMARKS.md. Run by Deno or Bun
// (`pnpm bench:runtimes`), it measures that runtime and writes its section instead.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { basename, join, resolve } from 'node:path';

import { backend, blake3, ready, setBackend } from '@blake3-web/core';

import { measureBundles } from './bundle-size.ts';
import type { Candidate, CallStyle, Reference } from './candidate.ts';
import {
  blake3JitCandidate,
  coreCandidates,
  coreReusedHasherCandidate,
  hashWasmCandidate,
  nobleCandidate,
  OFFICIAL_WASM_PACKAGE,
  officialWasmCandidate,
} from './candidates-blake3.ts';
import { blake3JitJsPathCandidate, nodeSha256Candidate } from './candidates-node.ts';
import { coreRevision } from './core-revision.ts';
import { describeMachine } from './machine-node.ts';
import { runtimeId, type RuntimeId } from './runtime-name.ts';
import type { BenchReport, Clock } from './report.ts';
import { runRounds } from './run-rounds.ts';
import { clockArg, cpuNow, scriptArgs } from './script-args.ts';
import { SIZES, UPDATE_SIZE } from './sizes.ts';
import { benchDir, nodeSection, repoRoot, resultsFileFor, saveReport, shown, updateDoc } from './write-results.ts';

const args = scriptArgs({
  quick: { type: 'boolean', default: false },
  rounds: { type: 'string' },
  'target-ms': { type: 'string' },
  'no-write': { type: 'boolean', default: false },
  clock: { type: 'string', default: 'wall' },
  render: { type: 'string' },
});

// --render FILE: rewrite the doc section from saved results, measuring nothing (for changes to
// the tables' format).
if (args.render !== undefined) {
  const saved = JSON.parse(readFileSync(args.render, 'utf8')) as BenchReport;
  // The file's name says whose run it was: node-, deno- or bun-<date>.json.
  const runtime = (/^(node|deno|bun)-/.exec(basename(args.render))?.[1] ?? runtimeId()) as RuntimeId;
  updateDoc(nodeSection(saved, resolve(args.render), runtime), runtime);
  console.log(`rendered ${args.render} into docs/BENCHMARKS.md`);
  process.exit(0);
}

// A full run: about 3 minutes on the 2-core reference machine. --quick: under a minute, for a
// look only, so it never overwrites the committed results.
const quick = args.quick ?? false;
const rounds = Number(args.rounds ?? (quick ? 5 : 41));
const targetMs = Number(args['target-ms'] ?? (quick ? 10 : 30));
const write = !quick && !(args['no-write'] ?? false);
const modes: CallStyle[] = ['one-shot', 'incremental'];
const clock: Clock = clockArg(args.clock);

const require = createRequire(import.meta.url);
const coreDistIndex = require.resolve('@blake3-web/core');

function peerVersion(pkg: string): string {
  return (JSON.parse(readFileSync(join(benchDir, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string })
    .version;
}

const peers = [
  ...[OFFICIAL_WASM_PACKAGE, 'blake3-jit', 'hash-wasm', '@noble/hashes'].map((name) => ({
    name,
    version: peerVersion(name),
  })),
  runtimeId() === 'node'
    ? { name: 'OpenSSL (node:crypto)', version: process.versions.openssl }
    : { name: 'node:crypto', version: describeMachine().runtime },
];

await ready();
const defaultBackend = backend();

const candidates: Candidate[] = [
  ...coreCandidates(),
  coreReusedHasherCandidate(),
  await officialWasmCandidate(),
  blake3JitCandidate(),
  await blake3JitJsPathCandidate(),
  await hashWasmCandidate(),
  nobleCandidate(),
  nodeSha256Candidate(),
];

// Our JS backend is the reference for BLAKE3: it is the portable path every other one is
// checked against in the core's own tests.
const reference: Reference = (algorithm, input) => {
  if (algorithm === 'sha256') return createHash('sha256').update(input).digest();
  setBackend('js');
  return blake3(input);
};

const date = new Date().toISOString();
const core = coreRevision(repoRoot);
const loadBefore = loadavg()[0];
const cpuBefore = process.cpuUsage();
const wallBefore = performance.now();
console.log(
  `${quick ? 'quick' : 'full'} run: ${rounds} rounds, ~${targetMs} ms of ${clock} time per sample, ${candidates.length} implementations`,
);
const result = await runRounds({
  candidates,
  reference,
  sizes: SIZES,
  modes,
  rounds,
  targetMs,
  updateSize: UPDATE_SIZE,
  now: clock === 'cpu' ? cpuNow : () => performance.now(),
  log: (line) => console.log(line),
});
setBackend(defaultBackend);
const cpu = process.cpuUsage(cpuBefore);
const wallMs = performance.now() - wallBefore;

const report: BenchReport = {
  schema: 1,
  date,
  machine: describeMachine(),
  config: { sizes: SIZES, modes, rounds, targetMs, updateSize: UPDATE_SIZE, quick, clock },
  core,
  defaultBackend,
  baseline: `core-${defaultBackend}`,
  candidates: candidates.map((c) => ({ id: c.id, label: c.label, algorithm: c.algorithm })),
  peers,
  bundleSizes: await measureBundles(coreDistIndex, benchDir),
  verifications: result.verifications,
  cells: result.cells.map((c) => ({ ...c, samples: c.samples.map((v) => Math.round(v * 10) / 10) })),
  elapsedMs: wallMs,
  // Other work on a shared machine shows up here: a 1-minute load average above the core
  // count, or this process getting well under one full core while it measured.
  contention: {
    loadAverageBefore: loadBefore,
    loadAverageAfter: loadavg()[0],
    cpuShare: (cpu.user + cpu.system) / 1000 / wallMs,
  },
};

const resultsFile = resultsFileFor(report);
const section = nodeSection(report, resultsFile);
console.log(`\n${section}\n`);

if (write) {
  saveReport(report, resultsFile);
  updateDoc(section);
  console.log(`wrote ${shown(resultsFile)} and docs/BENCHMARKS.md`);
} else {
  console.log('results not written (quick run or --no-write)');
}

if (report.verifications.some((v) => !v.ok)) {
  console.error('some implementations gave wrong output: see above');
  process.exitCode = 1;
}
