// The public entry points the API reference documents: every `exports` subpath of every published
// package, except the package.json, the `_`-prefixed internals, the bundled worker files (the same
// API as their unbundled entry) and the raw kernel. Read from the package.json files, so an entry
// point added there appears in the reference without a change here.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

export const repoRoot = new URL('../../', import.meta.url).pathname;

const SKIP = /^\.\/(package\.json|_.*|.*\.bundle|kernel\.wasm)$/;

/** `{ name: '@blake3-web/core/hazmat', source: 'packages/core/src/hazmat.ts' }` for each entry point. */
export function publicEntryPoints() {
  const entries = [];
  for (const dir of readdirSync(join(repoRoot, 'packages')).sort()) {
    const file = join(repoRoot, 'packages', dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8'));
    if (pkg.private || !pkg.exports) continue;
    for (const [subpath, target] of Object.entries(pkg.exports)) {
      if (SKIP.test(subpath)) continue;
      const types = typeof target === 'string' ? target : target.types;
      const source = `packages/${dir}/${types.replace(/^\.\/dist\//, 'src/').replace(/\.d\.ts$/, '.ts')}`;
      if (!existsSync(join(repoRoot, source))) throw new Error(`${pkg.name} ${subpath}: no source ${source}`);
      entries.push({ name: subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`, source });
    }
  }
  return entries;
}
