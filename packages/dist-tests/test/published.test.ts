// Each published package as its tarball: what a user installs must hold its README, LICENSE and
// every file its package.json names, no workspace: ranges, and lint clean under publint and
// arethetypeswrong. The packages are ESM only; require() of them is Node's require(esm)
// (Node 20.19+, 22.12+), so arethetypeswrong runs with its "esm-only" profile: resolutions for
// CommonJS callers under node16 and for the pre-exports node10 are not reported.
import { checkPackage, createPackageFromTarballData, type Package } from '@arethetypeswrong/core';
import { problemAffectsResolutionKind } from '@arethetypeswrong/core/problems';
import { allResolutionKinds } from '@arethetypeswrong/core/utils';
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { packAll, PUBLISHED, type Published } from './published.ts';

const IGNORED_RESOLUTIONS = ['node10', 'node16-cjs'];

/** Every file path a package.json points at: main, types, bin, and each exports target. */
function namedFiles(pkg: Record<string, unknown>): string[] {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') out.push(v);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk([pkg.main, pkg.types, pkg.bin, pkg.exports]);
  return [...new Set(out)].map((p) => p.replace(/^\.\//, ''));
}

describe('published packages, as packed tarballs', () => {
  let tarballs: Map<Published, Uint8Array>;
  before(() => {
    tarballs = packAll();
  });

  for (const name of PUBLISHED) {
    describe(`@blake3-web/${name}`, () => {
      let pkg: Package;
      let prefix: string;
      before(() => {
        pkg = createPackageFromTarballData(tarballs.get(name)!);
        prefix = `/node_modules/@blake3-web/${name}/`;
      });

      it('holds README.md, LICENSE, types and every file its package.json names; no workspace: ranges', () => {
        const files = new Set(pkg.listFiles().map((f) => f.slice(prefix.length)));
        for (const f of ['README.md', 'LICENSE', 'package.json', 'dist/index.d.ts'])
          assert.ok(files.has(f), `${f} is missing`);
        const json = pkg.readFile(`${prefix}package.json`);
        const manifest = JSON.parse(json) as Record<string, unknown>;
        for (const f of namedFiles(manifest))
          assert.ok(files.has(f), `package.json names ${f}, which is not in the tarball`);
        assert.doesNotMatch(json, /workspace:/);
        assert.equal(manifest.license, 'MIT');
      });

      it('publint reports nothing, suggestions included', async () => {
        const { messages, pkg: manifest } = await publint({
          pack: { tarball: tarballs.get(name)!.slice().buffer },
          level: 'suggestion',
          strict: true,
        });
        assert.deepEqual(
          messages.map((m) => `${m.type} ${m.code}: ${formatMessage(m, manifest)}`),
          [],
        );
      });

      it('arethetypeswrong reports nothing (profile esm-only)', async () => {
        const analysis = await checkPackage(pkg);
        assert.ok(analysis.types, 'no types found');
        const problems = analysis.problems.filter((p) =>
          allResolutionKinds.some(
            (k) => !IGNORED_RESOLUTIONS.includes(k) && problemAffectsResolutionKind(p, k, analysis),
          ),
        );
        assert.deepEqual(problems, []);
      });
    });
  }
});
