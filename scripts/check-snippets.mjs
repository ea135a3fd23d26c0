#!/usr/bin/env node
// Type-checks every ```ts and ```js block of the READMEs (root and packages) and docs/*.md against
// the built packages, and runs in Node the blocks marked runnable. Each block is a module of its own
// in test-results/snippets/. The line before a block may mark it:
//   <!-- snippet: skip <why> -->   a fragment that cannot stand alone (keep these rare)
//   <!-- snippet: run -->          complete: it also runs in Node, and must not throw
// Free names a block uses as placeholders (`file`, `key`, `url`...) are declared, with the types
// the text gives them, in scripts/snippet-placeholders.d.ts.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';

import { root } from './tools.mjs';

const out = join(root, 'test-results/snippets');
const sources = [
  'README.md',
  ...readdirSync(join(root, 'packages'))
    .map((p) => `packages/${p}/README.md`)
    .filter((f) => existsSync(join(root, f))),
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

const snippets = [];
for (const source of sources) {
  const lines = readFileSync(join(root, source), 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(ts|typescript|js|javascript)\s*$/.exec(lines[i]);
    if (!open) continue;
    const end = lines.indexOf('```', i + 1);
    if (end < 0) throw new Error(`${source}:${i + 1}: a code block that never ends`);
    let before = i - 1;
    while (before >= 0 && lines[before].trim() === '') before--;
    const mark = /^<!-- snippet: (skip|run)\b\s*(.*?)\s*-->$/.exec(lines[before] ?? '');
    if (mark?.[1] === 'skip' && mark[2] === '') throw new Error(`${source}:${before + 1}: a skip needs a reason`);
    snippets.push({ source, line: i + 1, lang: open[1], code: lines.slice(i + 1, end).join('\n'), mark: mark?.[1] });
    i = end;
  }
}

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'node_modules/@blake3-web'), { recursive: true });
// The packages as their users import them (package.json `exports`, the built dist/).
for (const dir of readdirSync(join(root, 'packages'))) {
  const pkg = join(root, 'packages', dir, 'package.json');
  if (existsSync(pkg) && !JSON.parse(readFileSync(pkg, 'utf8')).private)
    symlinkSync(join(root, 'packages', dir), join(out, 'node_modules/@blake3-web', dir), 'dir');
}
copyFileSync(join(root, 'scripts/snippet-placeholders.d.ts'), join(out, 'placeholders.d.ts'));
const files = [];
for (const s of snippets) {
  if (s.mark === 'skip') continue;
  // JavaScript blocks are checked as JavaScript: types are inferred, not demanded.
  s.file = `${s.source.replace(/[/.]/g, '_')}_${s.line}.${s.lang.startsWith('j') ? 'js' : 'ts'}`;
  files.push(s.file);
  // A module of its own: names do not clash between blocks, and top-level await works.
  writeFileSync(join(out, s.file), `${s.code}\nexport {};\n`);
}
// Third-party imports (workbox, tus, Vite) resolve from the workspace packages that depend on them.
const moduleDirs = ['packages', 'demo', 'servers', 'docs', 'bench'].flatMap((d) =>
  d === 'packages'
    ? readdirSync(join(root, 'packages')).map((p) => `packages/${p}/node_modules`)
    : [`${d}/node_modules`],
);
writeFileSync(
  join(out, 'tsconfig.json'),
  JSON.stringify({
    compilerOptions: {
      target: 'ES2022',
      module: 'ESNext',
      moduleResolution: 'Bundler',
      lib: ['ES2022', 'DOM', 'DOM.Iterable'],
      types: ['node'],
      typeRoots: [join(root, 'node_modules/@types')],
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      allowJs: true,
      checkJs: true,
      paths: { '*': ['./node_modules/*', ...moduleDirs.map((d) => `${relative(out, join(root, d))}/*`)] },
    },
    files: ['placeholders.d.ts', ...files],
  }),
);

const tsc = spawnSync(join(root, 'node_modules/.bin/tsc'), ['-p', out], { encoding: 'utf8' });
const errors = new Map();
for (const m of tsc.stdout.matchAll(/^(\S+\.[jt]s)\((\d+),\d+\): (error .*)$/gm)) {
  const s = snippets.find((x) => m[1].endsWith(`/${x.file}`) || m[1] === x.file);
  const where = s ? `${s.source}:${s.line + Number(m[2])}` : `${m[1]}:${m[2]}`;
  errors.set(where, `${where}: ${m[3]}`);
}
for (const e of errors.values()) console.error(e);
if (tsc.status !== 0 && errors.size === 0) console.error(tsc.stdout, tsc.stderr);

let ran = 0;
let runFailures = 0;
for (const s of snippets.filter((x) => x.mark === 'run')) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(out, s.file)], { cwd: out, encoding: 'utf8' });
  ran++;
  if (r.status !== 0) {
    runFailures++;
    console.error(`${s.source}:${s.line}: the runnable block failed in Node:\n${r.stderr}`);
  }
}
const skipped = snippets.filter((s) => s.mark === 'skip').length;
console.log(
  `snippets: ${files.length} type-checked (${errors.size} errors), ${ran} run in Node (${runFailures} failed), ${skipped} skipped as fragments`,
);
process.exit(tsc.status === 0 && runFailures === 0 ? 0 : 1);
