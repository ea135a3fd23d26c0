#!/usr/bin/env node
// Records what the reference tool, b3sum, prints for every scenario in test/scenarios.mjs, into
// test/fixtures/b3sum.json. Needs b3sum on the PATH (`cargo install b3sum --version 1.8.2`).
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeFiles, scenarios } from '../test/scenarios.mjs';
import { prepare } from '../test/prepare-scenario.mjs';

const b3sum = process.env.B3SUM ?? 'b3sum';
const version = spawnSync(b3sum, ['--version'], { encoding: 'utf8' });
if (version.status !== 0) {
  console.error(`b3sum not found (${b3sum}): install it with cargo install b3sum --version 1.8.2`);
  process.exit(1);
}
const dir = makeFiles();
const hashOf = (name) => spawnSync(b3sum, ['--no-names', name], { cwd: dir, encoding: 'utf8' }).stdout.trim();
const results = {};
for (const s of scenarios) {
  const { stdin } = prepare(s, dir, hashOf);
  const r = spawnSync(b3sum, s.args, { cwd: dir, input: stdin, env: { ...process.env, RUST_BACKTRACE: '0' } });
  results[s.name] = {
    status: r.status,
    stdout: r.stdout.toString('base64'),
    stderr: r.stderr.toString('utf8'),
    // The prepared check files, so the tests need not run b3sum.
    checkfiles: Object.fromEntries(Object.keys(s.checkfiles ?? {}).map((f) => [f, prepare.read(dir, f)])),
    stdinCheck: s.stdinCheck === undefined ? undefined : stdin.toString('utf8'),
  };
}
rmSync(dir, { recursive: true, force: true });
const out = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..', 'test', 'fixtures', 'b3sum.json');
writeFileSync(out, JSON.stringify({ tool: version.stdout.trim(), results }, null, 1) + '\n');
console.log(`wrote ${Object.keys(results).length} scenarios from ${version.stdout.trim()} to ${out}`);
