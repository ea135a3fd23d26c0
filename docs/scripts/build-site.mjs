#!/usr/bin/env node
// Builds the docs site: the API reference (generate-api.mjs), then VitePress, each skipped when
// its inputs are what they were at its last successful build (build-stamp.mjs; DOCS_REBUILD=1
// forces both). Usage: node scripts/build-site.mjs [--outDir <dir>] (default .vitepress/dist).
// VitePress's own checks (dead links among them) depend only on these inputs, so a skipped
// build would have passed them again.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

import { filesUnder, inputsDigest, isUpToDate, repoFileList, writeStamp } from './build-stamp.mjs';
import { repoRoot } from './entry-points.mjs';

const docs = join(repoRoot, 'docs');
const { values } = parseArgs({ options: { outDir: { type: 'string' } } });
const outDir = values.outDir ? resolve(values.outDir) : join(docs, '.vitepress/dist');

const run = (args) => {
  const r = spawnSync(process.execPath, args, { cwd: docs, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

run([join(docs, 'scripts/generate-api.mjs')]);

// The site is made from docs/ (the generated reference included), the READMEs the guides
// include, and, through the links it turns into links to GitHub, which files the repository has.
const pages = filesUnder(docs, new Set(['node_modules', 'docs/.vitepress/dist', 'docs/.vitepress/cache']));
const included = pages
  .filter((f) => f.endsWith('.md'))
  .flatMap((f) =>
    Array.from(readFileSync(f, 'utf8').matchAll(/<!--@include:\s*([^\s]+?)\s*-->/g), (m) => resolve(dirname(f), m[1])),
  );
const fileList = repoFileList();
const digest =
  fileList === undefined
    ? undefined
    : inputsDigest(
        [...pages, ...included, join(repoRoot, 'pnpm-lock.yaml')],
        [`base ${process.env.DOCS_BASE ?? ''}`, `outDir ${outDir}`, fileList],
      );
if (digest !== undefined && isUpToDate(outDir, digest)) {
  console.log(`docs site in ${outDir} is up to date: not rebuilt`);
  process.exit(0);
}
run([join(docs, 'node_modules/vitepress/bin/vitepress.js'), 'build', '--outDir', outDir]);
if (digest !== undefined) writeStamp(outDir, digest);
