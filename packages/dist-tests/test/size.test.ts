// What the core's entry points add to an app: each bundled by esbuild, minified, and gzipped.
// The budgets are the sizes last measured, rounded up to 100 bytes: lower them when a change
// saves bytes; raise one on purpose, with the reason in the commit, when a feature is worth them.
import { build } from 'esbuild';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const BUDGETS: readonly { name: string; code: string; minified: number; gzip: number }[] = [
  { name: '@blake3-web/core (every export)', code: "export * from '@blake3-web/core';", minified: 38400, gzip: 13000 },
  {
    name: '@blake3-web/core/hazmat (every export)',
    code: "export * from '@blake3-web/core/hazmat';",
    minified: 39700,
    gzip: 13100,
  },
  { name: 'blake3() alone', code: "export { blake3 } from '@blake3-web/core';", minified: 27900, gzip: 8900 },
];

describe('bundle size of the core entry points (esbuild, minified)', () => {
  for (const b of BUDGETS) {
    it(`${b.name}: at most ${b.minified} B minified, ${b.gzip} B gzipped`, async () => {
      const out = await build({
        stdin: { contents: b.code, resolveDir: fileURLToPath(new URL('..', import.meta.url)) },
        bundle: true,
        minify: true,
        format: 'esm',
        write: false,
        logLevel: 'silent',
      });
      const bytes = out.outputFiles[0].contents;
      const gzip = gzipSync(bytes, { level: 9 }).length;
      assert.ok(bytes.length <= b.minified, `${bytes.length} B minified, budget ${b.minified}`);
      assert.ok(gzip <= b.gzip, `${gzip} B gzipped, budget ${b.gzip}`);
    });
  }
});
