// Each published package as its tarball: what a user installs must hold its README, LICENSE,
// CHANGELOG and every file its package.json names, no workspace: ranges, and the metadata that
// leads from a package page back to the docs, the repository and the issue tracker.
// (`npm publish --dry-run`, publint and arethetypeswrong run on the same tarballs in
// scripts/check-packages.mjs, a stage of `npm test` of its own.)
import { createPackageFromTarballData, type Package } from '@arethetypeswrong/core';
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import ts from 'typescript';
import { packAll, PUBLISHED, type Published } from './published.ts';

const REPOSITORY = 'git+https://github.com/blake3-web/blake3-web.git';
const DOCS = 'https://blake3-web.github.io/blake3-web/';

/**
 * Whether a module does something when imported: a top-level expression statement (a call, an
 * assignment, `postMessage`, a listener) or an `if`. Declarations whose initialisers only build
 * the module's own values are no side effect for a bundler, nor is completing a value the
 * module declares itself (`Object.assign(blake3, { create })`, `f.x = ...`).
 */
function runsAtImport(code: string): boolean {
  const source = ts.createSourceFile('m.js', code, ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS);
  const own = new Set<string>();
  for (const s of source.statements) {
    if ((ts.isFunctionDeclaration(s) || ts.isClassDeclaration(s)) && s.name) own.add(s.name.text);
    if (ts.isVariableStatement(s))
      for (const d of s.declarationList.declarations) if (ts.isIdentifier(d.name)) own.add(d.name.text);
  }
  const completesOwn = (e: ts.Expression): boolean => {
    if (ts.isCallExpression(e) && e.expression.getText(source) === 'Object.assign') {
      const target = e.arguments[0];
      return target !== undefined && ts.isIdentifier(target) && own.has(target.text);
    }
    if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
      const target = e.left;
      return (
        ts.isPropertyAccessExpression(target) && ts.isIdentifier(target.expression) && own.has(target.expression.text)
      );
    }
    return false;
  };
  return source.statements.some(
    (s) => ts.isIfStatement(s) || (ts.isExpressionStatement(s) && !completesOwn(s.expression)),
  );
}

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
        for (const f of ['README.md', 'LICENSE', 'CHANGELOG.md', 'package.json', 'dist/index.d.ts'])
          assert.ok(files.has(f), `${f} is missing`);
        const json = pkg.readFile(`${prefix}package.json`);
        const manifest = JSON.parse(json) as Record<string, unknown>;
        for (const f of namedFiles(manifest))
          assert.ok(files.has(f), `package.json names ${f}, which is not in the tarball`);
        assert.doesNotMatch(json, /workspace:/);
        assert.equal(manifest.license, 'MIT');
      });

      it('names its repository directory, docs, issue tracker, keywords, engines, sideEffects, public access', () => {
        const manifest = JSON.parse(pkg.readFile(`${prefix}package.json`)) as Record<string, unknown>;
        assert.deepEqual(manifest.repository, { type: 'git', url: REPOSITORY, directory: `packages/${name}` });
        assert.equal(manifest.homepage, DOCS);
        assert.deepEqual(manifest.bugs, { url: 'https://github.com/blake3-web/blake3-web/issues' });
        assert.ok(Array.isArray(manifest.keywords) && manifest.keywords.includes('blake3'));
        assert.deepEqual(manifest.engines, { node: '>=20' });
        assert.ok(manifest.sideEffects === false || Array.isArray(manifest.sideEffects), 'sideEffects is declared');
        assert.deepEqual(manifest.publishConfig, { access: 'public' });
        // sideEffects lists exactly the modules that run code at import (worker entry files).
        const modules = pkg
          .listFiles()
          .map((f) => f.slice(prefix.length))
          .filter((f) => /^(dist|bin)\/.*\.js$/.test(f) && !f.endsWith('.bundle.js'));
        const running = modules.filter((f) => runsAtImport(pkg.readFile(`${prefix}${f}`))).map((f) => `./${f}`);
        const listed = Array.isArray(manifest.sideEffects) ? (manifest.sideEffects as string[]) : [];
        assert.deepEqual(
          listed.filter((f) => !f.endsWith('.bundle.js')).sort(),
          running.sort(),
          'sideEffects lists the modules that run code at import, and no other',
        );
        for (const f of listed)
          assert.ok(pkg.fileExists(`${prefix}${f.slice(2)}`), `sideEffects names ${f}, not in the tarball`);
        const readme = pkg.readFile(`${prefix}README.md`).split('\n').slice(0, 12).join('\n');
        assert.ok(readme.includes(DOCS), 'the README links the docs in its first lines');
        assert.ok(readme.includes('https://github.com/blake3-web/blake3-web'), 'the README links the repository');
      });
    });
  }
});
