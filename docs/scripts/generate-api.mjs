#!/usr/bin/env node
// Generates the API reference (docs/api/, not committed) from the packages' TSDoc comments with
// TypeDoc and typedoc-plugin-markdown: one page per export, one module per public entry point, and
// the sidebar VitePress reads (docs/api/typedoc-sidebar.json).
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { Application, Converter } from 'typedoc';

import { publicEntryPoints, repoRoot } from './entry-points.mjs';

const out = join(repoRoot, 'docs/api');
rmSync(out, { recursive: true, force: true });

const entries = publicEntryPoints();
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
