#!/usr/bin/env node
// Builds the published site (GitHub Pages) into one directory: the docs site at its root, built
// for the path the site is served under, and the demo's static build under demo/ (the pages that
// need the demo's server left out, see demo/site-shell.ts). The packages must be built first
// (`node scripts/pnpm.mjs run build`). Usage:
//   node scripts/build-pages.mjs [--out <dir>] [--base </path/>]
// --out defaults to .pages/, --base to PAGES_BASE, else /blake3-web/ (the project's Pages URL,
// https://blake3-web.github.io/blake3-web/).
import { existsSync, rmSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

import { env, must, pnpmBin, root } from './tools.mjs';

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: join(root, '.pages') },
    base: { type: 'string', default: process.env.PAGES_BASE || '/blake3-web/' },
  },
});
const out = isAbsolute(values.out) ? values.out : resolve(values.out);
const base = values.base;
if (!/^\/([\w.-]+\/)*$/.test(base)) {
  throw new RangeError(`--base must be a path that starts and ends with /, got ${JSON.stringify(base)}`);
}
if (!existsSync(join(root, 'packages/core/dist/index.js'))) {
  throw new Error('the packages are not built: run `node scripts/pnpm.mjs run build` first');
}

rmSync(out, { recursive: true, force: true });

// The docs site, as its own build makes it; the build's stamp is no file of the site's.
const docs = join(root, 'docs');
must(process.execPath, [join(docs, 'scripts/build-site.mjs'), '--outDir', out], {
  cwd: docs,
  env: { ...env(), DOCS_BASE: base },
});
rmSync(join(out, '.build-stamp'), { force: true });

// The demo: relative asset URLs (base './'), so it works under any path; the service workers go
// beside the pages, as in the demo's own build.
const demoOut = join(out, 'demo');
const demo = join(root, 'demo');
const staticEnv = { ...env(), BLAKE3_DEMO_STATIC: '1' };
for (const args of [
  ['build', '--outDir', demoOut, '--emptyOutDir'],
  ['build', '--config', 'vite.sw.config.ts', '--outDir', demoOut],
  ['build', '--config', 'vite.sw.config.ts', '--mode', 'precache', '--outDir', demoOut],
]) {
  must(pnpmBin, ['exec', 'vite', ...args], { cwd: demo, env: staticEnv });
}

console.log(`\nthe site for ${base} is in ${out} (docs at ${base}, demo at ${base}demo/)`);
