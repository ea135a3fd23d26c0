// Where a Node run's results go: raw JSON under bench/results/, its section of docs/BENCHMARKS.md.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

import { replaceSection } from './doc-section.ts';
import { environmentSection } from './markdown-section.ts';
import type { BenchReport } from './report.ts';
import { RUNTIME_TITLES, runtimeId, type RuntimeId } from './runtime-name.ts';

export const benchDir = join(dirname(fileURLToPath(import.meta.url)), '..');
export const repoRoot = join(benchDir, '..');
const docFile = join(repoRoot, 'docs', 'BENCHMARKS.md');

export function resultsFileFor(report: BenchReport, runtime: RuntimeId = runtimeId()): string {
  return join(benchDir, 'results', `${runtime}-${report.date.slice(0, 10)}.json`);
}

/** The section of `runtime` (this one by default) for `report`, whose JSON is (or will be) at `resultsFile`. */
export function nodeSection(report: BenchReport, resultsFile: string, runtime: RuntimeId = runtimeId()): string {
  return environmentSection(RUNTIME_TITLES[runtime], report, relative(dirname(docFile), resultsFile), runtime);
}

export function saveReport(report: BenchReport, resultsFile: string): void {
  mkdirSync(dirname(resultsFile), { recursive: true });
  writeFileSync(resultsFile, `${JSON.stringify(report, null, 1)}\n`);
}

/** Rewrites one runtime's section of docs/BENCHMARKS.md, keeping every other section and all text outside markers. */
export function updateDoc(section: string, runtime: RuntimeId = runtimeId()): void {
  mkdirSync(dirname(docFile), { recursive: true });
  const doc = existsSync(docFile)
    ? readFileSync(docFile, 'utf8')
    : readFileSync(join(benchDir, 'benchmarks-doc-header.md'), 'utf8');
  writeFileSync(docFile, replaceSection(doc, runtime, section));
}

export function shown(path: string): string {
  return relative(repoRoot, path);
}
