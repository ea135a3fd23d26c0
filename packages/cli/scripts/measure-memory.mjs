#!/usr/bin/env node
// Peak RSS of b3web and b3sum where b3web once held everything in memory: `--length` of 1 GiB
// (2 GiB of hex) and `--check` of a 1 GiB check file (millions of valid lines naming one small
// file). Output goes to /dev/null. Figures from GNU time; writes the `cli-memory` section of
// docs/BENCHMARKS.md. Needs /usr/bin/time and b3sum (`node scripts/bootstrap.mjs --test`).
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const bin = join(root, 'packages/cli/bin/b3web.js');
const local = join(root, '.tools/cargo/bin/b3sum');
const b3sum = existsSync(local) ? local : 'b3sum';
const size = Number(process.env.SIZE ?? 1 << 30);
const dir = mkdtempSync(join(tmpdir(), 'b3web-memory-'));

try {
  // A name of 120 bytes: lines of 187 bytes, 5.7 million of them in 1 GiB.
  const name = 'n'.repeat(120);
  writeFileSync(join(dir, name), 'checked');
  const hash = spawnSync(b3sum, ['--no-names', name], { cwd: dir, encoding: 'utf8' }).stdout.trim();
  const line = Buffer.from(`${hash}  ${name}\n`);
  const piece = Buffer.concat(Array.from({ length: Math.floor((1 << 20) / line.length) }, () => line));
  const fd = openSync(join(dir, 'sums'), 'w');
  let lines = 0;
  for (let written = 0; written + piece.length <= size; written += piece.length)
    (writeSync(fd, piece), (lines += piece.length / line.length));
  closeSync(fd);

  const load = loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  const rows = [];
  for (const [what, args] of [
    [`--length ${size} (hex to /dev/null)`, ['--no-names', '--length', String(size), name]],
    [
      `--check of a ${((lines * line.length) / 2 ** 30).toFixed(2)} GiB check file (${lines} lines)`,
      ['--check', 'sums'],
    ],
  ]) {
    const cells = [];
    for (const [tool, cmd, pre] of [
      ['b3web', process.execPath, [bin]],
      ['b3sum', b3sum, []],
    ]) {
      const out = openSync('/dev/null', 'w');
      const r = spawnSync('/usr/bin/time', ['-f', '%e %M', cmd, ...pre, ...args], {
        cwd: dir,
        stdio: ['ignore', out, 'pipe'],
        encoding: 'utf8',
      });
      closeSync(out);
      if (r.status !== 0) throw new Error(`${tool} ${args.join(' ')} failed: ${r.stderr}`);
      const [secs, kib] = r.stderr.trim().split('\n').pop().split(' ').map(Number);
      cells.push(`${(kib / 1024).toFixed(0)} MiB, ${secs.toFixed(1)} s`);
    }
    rows.push(`| ${what} | ${cells.join(' | ')} |`);
  }
  const b3sumVersion = spawnSync(b3sum, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const section = `## Command line: memory of long outputs and large check files

${new Date().toISOString().slice(0, 10)}, one run each, peak RSS and wall time from GNU time, output to /dev/null; Node ${process.versions.node}, ${b3sumVersion}; load average ${load} on 2 cores shared with other work (times are indicative only). Run: \`node packages/cli/scripts/measure-memory.mjs\`.

| command | b3web peak RSS, time | b3sum peak RSS, time |
|:--|--:|--:|
${rows.join('\n')}

b3web makes and writes output 64 KiB at a time and reads check files line by line (a line is held only up to 64 KiB), so neither grows with the input; most of its RSS is Node itself. In the check, every line opens, stats, reads and closes the file it names; in a CPU profile of 200,000 such lines those calls took most of b3web's time (about three quarters).
`;
  const doc = join(root, 'docs/BENCHMARKS.md');
  const text = readFileSync(doc, 'utf8');
  const start = '<!-- bench:cli-memory:start -->',
    end = '<!-- bench:cli-memory:end -->';
  const block = `${start}\n${section.trimEnd()}\n${end}`;
  const i = text.indexOf(start),
    j = text.indexOf(end);
  writeFileSync(
    doc,
    i >= 0 && j > i ? text.slice(0, i) + block + text.slice(j + end.length) : `${text.trimEnd()}\n\n${block}\n`,
  );
  console.log(section);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
