#!/usr/bin/env node
// Builds dist/worker.bundle.js: the browser worker entry with comlink and the core inlined, one
// self-contained module. Module workers do not see a page's import map, so without a bundler
// this is the only form of the worker a browser can load. Run after tsc (it bundles dist/).
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
await build({
  entryPoints: [`${dist}worker.js`],
  outfile: `${dist}worker.bundle.js`,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  sourcemap: true,
  legalComments: 'inline',
  logLevel: 'warning',
});
