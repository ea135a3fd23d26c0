#!/usr/bin/env node
// Times b3web and b3sum on one large file (default 1 GiB, made once in the temp directory) with 1
// and 2 threads: MB/s and peak RSS from GNU time, median of interleaved rounds. Writes the `cli`
// section of docs/BENCHMARKS.md. Needs /usr/bin/time and b3sum (`node scripts/bootstrap.mjs --test`, or on the PATH).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const bin = join(root, 'packages/cli/bin/b3web.js');
const size = Number(process.env.SIZE ?? 1 << 30);
const rounds = Number(process.env.ROUNDS ?? 5);
const file = join(tmpdir(), `b3web-measure-${size}.bin`);
const local = join(root, '.tools/cargo/bin/b3sum');
const b3sum = existsSync(local) ? local : 'b3sum';

if (!existsSync(file)) {
  const fd = openSync(file, 'w');
  const piece = new Uint8Array(1 << 20);
  for (let off = 0; off < size; off += piece.length) {
    for (let i = 0; i < piece.length; i += 4) piece[i] = ((off + i) * 2654435761) >>> 24;
    writeSync(fd, piece, 0, Math.min(piece.length, size - off));
  }
  closeSync(fd);
}

const tools = [
  ['b3web --num-threads 1', process.execPath, [bin, '--num-threads', '1', file]],
  ['b3web --num-threads 2', process.execPath, [bin, '--num-threads', '2', file]],
  ['b3sum --num-threads 1', b3sum, ['--num-threads', '1', file]],
  ['b3sum --num-threads 2', b3sum, ['--num-threads', '2', file]],
];
const results = new Map(tools.map(([name]) => [name, { secs: [], rssKiB: [] }]));
let expected;
for (let r = -1; r < rounds; r++) {
  for (let k = 0; k < tools.length; k++) {
    const [name, cmd, args] = tools[(k + Math.max(r, 0)) % tools.length];
    const run = spawnSync('/usr/bin/time', ['-f', '%e %M', cmd, ...args], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`${name} failed: ${run.stderr}`);
    const hex = run.stdout.split(' ')[0];
    expected ??= hex;
    if (hex !== expected) throw new Error(`${name} printed ${hex}, expected ${expected}`);
    if (r < 0) continue; // the first round warms the page cache
    const [secs, rss] = run.stderr.trim().split('\n').pop().split(' ').map(Number);
    results.get(name).secs.push(secs);
    results.get(name).rssKiB.push(rss);
  }
}
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const rows = [...results].map(
  ([name, { secs, rssKiB }]) =>
    `| ${name} | ${(size / 1e6 / median(secs)).toFixed(0)} | ${median(secs).toFixed(2)} | ${(median(rssKiB) / 1024).toFixed(0)} |`,
);
const b3sumVersion = spawnSync(b3sum, ['--version'], { encoding: 'utf8' }).stdout.trim();
const section = `## Command line: b3web beside b3sum

${new Date().toISOString().slice(0, 10)}, a ${size / 2 ** 30} GiB file in the page cache, whole-process time (Node start-up and worker start included) and peak RSS from GNU time, median of ${rounds} interleaved rounds after a warm-up round; ${cpus()[0]?.model ?? 'CPU'}, ${cpus().length} cores (shared with other work), Node ${process.versions.node}, ${b3sumVersion}. Run: \`node packages/cli/scripts/measure-cli.mjs\`.

| command | MB/s | seconds | peak RSS (MiB) |
|:--|--:|--:|--:|
${rows.join('\n')}

b3sum memory-maps the file (RSS counts the mapped pages) and uses the CPU's widest SIMD (AVX-512 here); b3web reads it in pieces (16 MiB subtrees, two in flight per worker) with 128-bit WASM SIMD.
`;
const doc = join(root, 'docs/BENCHMARKS.md');
const text = readFileSync(doc, 'utf8');
const start = '<!-- bench:cli:start -->',
  end = '<!-- bench:cli:end -->';
const block = `${start}\n${section.trimEnd()}\n${end}`;
const i = text.indexOf(start),
  j = text.indexOf(end);
writeFileSync(
  doc,
  i >= 0 && j > i ? text.slice(0, i) + block + text.slice(j + end.length) : `${text.trimEnd()}\n\n${block}\n`,
);
console.log(section);
