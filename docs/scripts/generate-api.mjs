#!/usr/bin/env node
// Generates the API reference (docs/api/, not committed) from the packages' TSDoc comments with
// TypeDoc and typedoc-plugin-markdown: one page per export, one module per public entry point, and
// the sidebar VitePress reads (docs/api/typedoc-sidebar.json).
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { filesUnder, inputsDigest, isUpToDate, writeStamp } from './build-stamp.mjs';
import { publicEntryPoints, repoRoot } from './entry-points.mjs';

const out = join(repoRoot, 'docs/api');
const entries = publicEntryPoints();

// What the reference is made from: the packages' sources and manifests, this generator, and the
// versions of TypeDoc, its plugins and the types it reads (the lockfile).
const packages = readdirSync(join(repoRoot, 'packages')).map((dir) => join(repoRoot, 'packages', dir));
const digest = inputsDigest([
  ...packages.flatMap((dir) => [join(dir, 'package.json'), ...filesUnder(join(dir, 'src'))]),
  ...filesUnder(join(repoRoot, 'docs/scripts')),
  ...['docs/package.json', 'pnpm-lock.yaml', 'tsconfig.base.json'].map((f) => join(repoRoot, f)),
]);
if (isUpToDate(out, digest)) {
  console.log('API reference in docs/api/ is up to date with the packages: not regenerated');
  process.exit(0);
}
rmSync(out, { recursive: true, force: true });

// TypeDoc takes seconds to load: only once the stamp says it has work.
const { Application, Converter } = await import('typedoc');
const tsconfig = join(repoRoot, 'node_modules/.cache/blake3-web-docs/tsconfig.json');
const app = await Application.bootstrapWithPlugins({
  entryPoints: entries.map((e) => join(repoRoot, e.source)),
  tsconfig: await writeTsconfig(tsconfig, entries),
  plugin: ['typedoc-plugin-markdown', 'typedoc-vitepress-theme'],
  out,
  readme: 'none',
  entryFileName: 'index',
  outputFileStrategy: 'members',
  excludePrivate: true,
  excludeInternal: true,
  excludeExternals: true,
  disableSources: true,
  hidePageHeader: true,
  hideBreadcrumbs: false,
  useCodeBlocks: true,
  // Prose in TSDoc may hold <placeholders>; escaped, VitePress does not read them as HTML tags.
  sanitizeComments: true,
  // tsc checks the packages in their own builds; here TypeDoc only reads them.
  skipErrorChecking: true,
  // The reference is for the packages' users: internals that leak into a signature stay unnamed.
  treatWarningsAsErrors: false,
  validation: { notExported: false, invalidLink: true },
  docsRoot: join(repoRoot, 'docs'),
  sidebar: { pretty: true },
  logLevel: 'Warn',
});
// TypeDoc names a module by its path under the common base (`core/src/hazmat`); the reference
// names it by the import specifier (`@blake3-web/core/hazmat`).
const byPath = new Map(
  entries.map((e) => [e.source.replace(/^packages\//, '').replace(/(\/index)?\.ts$/, ''), e.name]),
);
app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
  for (const module of context.project.children ?? []) {
    const name = byPath.get(module.name);
    if (name === undefined) throw new Error(`no entry point for the module TypeDoc named ${module.name}`);
    module.name = name;
  }
});
const project = await app.convert();
if (!project) throw new Error('TypeDoc could not convert the packages');
await app.generateOutputs(project);
if (app.logger.hasErrors()) process.exit(1);
writeStamp(out, digest);
console.log(`API reference for ${entries.length} entry points in docs/api/`);

async function writeTsconfig(file, list) {
  const { mkdirSync } = await import('node:fs');
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(
    file,
    JSON.stringify({
      extends: join(repoRoot, 'tsconfig.base.json'),
      compilerOptions: {
        noEmit: true,
        types: ['node'],
        lib: ['ES2022', 'DOM', 'DOM.Iterable', 'WebWorker.ImportScripts'],
      },
      files: list.map((e) => join(repoRoot, e.source)),
    }),
  );
  return file;
}
