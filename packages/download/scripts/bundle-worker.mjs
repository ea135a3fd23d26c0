#!/usr/bin/env node
// Builds the OPFS store's worker, ./opfs-worker.js with the core inlined, in two forms:
// - dist/opfs-worker.bundle.js, one self-contained module: module workers do not see a page's
//   import map, so without a bundler this is the form a browser can load, and bundlers that
//   follow new URL(..., import.meta.url) take it as is;
// - dist/opfs-worker-source.js, the same worker minified as a string, which the store starts
//   from a blob: URL where a bundler left the first one out.
// Run after tsc (it bundles dist/).
import { build } from 'esbuild';
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const common = {
  entryPoints: [`${dist}opfs-worker.js`],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  logLevel: 'warning',
};
const [, inline] = await Promise.all([
  build({ ...common, outfile: `${dist}opfs-worker.bundle.js`, sourcemap: true, legalComments: 'inline' }),
  build({ ...common, write: false, minify: true, legalComments: 'inline' }),
]);
const source = inline.outputFiles[0].text;
await Promise.all([
  writeFile(
    `${dist}opfs-worker-source.js`,
    `// The OPFS store's worker (./opfs-worker.bundle.js), minified, as a string.\nexport default ${JSON.stringify(source)};\n`,
  ),
  writeFile(`${dist}opfs-worker-source.d.ts`, 'declare const source: string;\nexport default source;\n'),
]);
