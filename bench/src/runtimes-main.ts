// `pnpm bench:runtimes`: the Node benchmark (src/node-main.ts) run by Deno and by Bun, the
// versions in the root devDependencies, one after the other; each writes its own section of
// docs/BENCHMARKS.md and its own bench/results/<runtime>-<date>.json. Options after
// `--runtimes deno,bun` go to node-main.ts as they are (--quick, --rounds, --clock, --no-write).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

import { benchDir, repoRoot } from './write-results.ts';

const RUNNERS = {
  // Deno reads node_modules as Node does; --sloppy-imports maps the sources' `.ts` imports.
  // It needs to run esbuild (bundle sizes, blake3-jit's JS-path copy) and write the results.
  deno: ['run', '--sloppy-imports', '--allow-read', '--allow-write', '--allow-env', '--allow-run', '--allow-sys'],
  bun: ['run'],
} as const;
type Runner = keyof typeof RUNNERS;

const argv = process.argv.slice(2).filter((a, i) => i > 0 || a !== '--');
const at = argv.indexOf('--runtimes');
const chosen = at >= 0 ? argv[at + 1]?.split(',') : Object.keys(RUNNERS);
const passed = at >= 0 ? [...argv.slice(0, at), ...argv.slice(at + 2)] : argv;
for (const r of chosen ?? [])
  if (!(r in RUNNERS))
    throw new RangeError(`--runtimes: unknown runtime ${r} (known: ${Object.keys(RUNNERS).join(', ')})`);

let failed = false;
for (const runtime of chosen as Runner[]) {
  const bin = join(repoRoot, 'node_modules', '.bin', runtime);
  console.log(`\n== ${runtime}: ${[bin, ...RUNNERS[runtime], 'src/node-main.ts', ...passed].join(' ')}`);
  const r = spawnSync(bin, [...RUNNERS[runtime], 'src/node-main.ts', ...passed], { cwd: benchDir, stdio: 'inherit' });
  if (r.status !== 0) {
    failed = true;
    console.error(`${runtime}: the benchmark ended with ${r.error ? r.error.message : `status ${r.status}`}`);
  }
}
if (failed) process.exitCode = 1;
