#!/usr/bin/env node
// Each public package as it would be published: packed by pnpm (which replaces workspace: ranges,
// as `pnpm publish` does), then the tarball through `npm publish --dry-run`, publint (suggestions
// included, strict) and arethetypeswrong. The packages are ESM only by design, so attw runs with
// its esm-only profile: require() from CommonJS and the pre-exports node10 resolution are not
// reported. Any warning from npm counts as a finding; the exit status is non-zero on any.
// `node scripts/check-packages.mjs core stream` checks only those packages.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { env, pnpmBin, root } from './tools.mjs';

const bin = (name) => join(root, 'node_modules/.bin', name);

/** The workspace's packages that are not private, by directory name (or those named in argv). */
function publicPackages() {
  const dir = join(root, 'packages');
  const only = process.argv.slice(2);
  return readdirSync(dir).filter((name) => {
    if (only.length > 0 && !only.includes(name)) return false;
    try {
      return JSON.parse(readFileSync(join(dir, name, 'package.json'), 'utf8')).private !== true;
    } catch {
      return false;
    }
  });
}

/** Runs a command to its end; resolves with its exit status and its output. */
function capture(cmd, args, cwd = root) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', (e) => resolve({ status: 127, output: String(e) }));
    child.on('close', (status) => resolve({ status: status ?? 1, output }));
  });
}

/** Packs one package and checks its tarball; resolves with what passed and what failed. */
async function checkPackage(name, out) {
  const checked = [];
  const findings = [];
  const packed = await capture(pnpmBin, ['pack', '--pack-destination', out], join(root, 'packages', name));
  const tarball = packed.output.trim().split('\n').at(-1);
  if (packed.status !== 0 || !tarball.endsWith('.tgz'))
    return { checked, findings: [`${name}: pnpm pack failed\n${packed.output}`] };
  const steps = [
    ['npm publish --dry-run', 'npm', ['publish', '--dry-run', '--ignore-scripts', tarball]],
    ['publint', bin('publint'), ['run', tarball, '--level', 'suggestion', '--strict']],
    ['attw', bin('attw'), [tarball, '--profile', 'esm-only', '--format', 'table-flipped']],
  ];
  await Promise.all(
    steps.map(async ([label, cmd, args]) => {
      const started = Date.now();
      const { status, output } = await capture(cmd, args);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      // npm reports what it would auto-correct or refuse as warnings, with exit status 0. Only a
      // real publish logs in: the dry run's warning about that is no finding.
      const warnings = label.startsWith('npm')
        ? output.split('\n').filter((l) => /^npm warn/i.test(l) && !/requires you to be logged in/.test(l))
        : [];
      if (status !== 0 || warnings.length > 0) findings.push(`${name}: ${label}\n${output.trim()}`);
      else checked.push(`${name}: ${label} (${seconds} s)`);
    }),
  );
  return { checked, findings };
}

// Most of the wall time is waiting (npm's dry run asks the registry about the package): two
// packages at a time, each with its three checks at once.
const CONCURRENCY = 2;
const out = mkdtempSync(join(tmpdir(), 'blake3-web-publish-'));
const results = [];
try {
  const queue = publicPackages();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let name = queue.shift(); name !== undefined; name = queue.shift())
        results.push(await checkPackage(name, out));
    }),
  );
} finally {
  rmSync(out, { recursive: true, force: true });
}

const checked = results.flatMap((r) => r.checked).sort();
const findings = results.flatMap((r) => r.findings).sort();
for (const line of checked) console.log(`ok   ${line}`);
for (const finding of findings) console.error(`FAIL ${finding}\n`);
console.log(`\n${checked.length} passed, ${findings.length} failed`);
process.exitCode = findings.length > 0 ? 1 : 0;
