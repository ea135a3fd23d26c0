#!/usr/bin/env node
// Builds dist/hash-worker.bundle.js: ./hash-worker.js with comlink and the core inlined, one
// self-contained module. Module workers do not see a page's import map, so without a bundler this
// is the form a browser can load, and bundlers that follow new URL(..., import.meta.url) take it
// as is. Run after tsc (it bundles dist/).
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
await build({
  entryPoints: [`${dist}hash-worker.js`],
  outfile: `${dist}hash-worker.bundle.js`,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  sourcemap: true,
  legalComments: 'inline',
  logLevel: 'warning',
});
