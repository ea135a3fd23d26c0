// The built package as an application gets it: default workers (dist/worker.js through
// worker_threads), the shared pool behind hashFile, and a process that exits on its own.
import { blake3, bytesToHex } from '@blake3-web/core';
import { paint } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { MiB, tempDir } from './_helpers.ts';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

describe('the built package', () => {
  it('hashFile hashes paths and Blobs on default workers, and idle workers let Node exit', () => {
    const input = paint(20 * MiB + 5);
    const path = join(tempDir(), 'input.bin');
    writeFileSync(path, input);
    const script = `
      import { hashFile, createPool } from '@blake3-web/worker';
      import { bytesToHex } from '@blake3-web/core';
      import { readFileSync } from 'node:fs';
      const path = ${JSON.stringify(path)};
      console.log(bytesToHex(await hashFile(path)));
      console.log(bytesToHex(await hashFile(new Blob([readFileSync(path)]), { context: 'ctx', dkLen: 40 })));
      // A pool nobody terminates must not keep the process alive either.
      console.log(bytesToHex(await createPool({ size: 2 }).hashBlob(new Blob([readFileSync(path)]))));
    `;
    // Run from the package directory so '@blake3-web/worker' resolves to this package's dist.
    const res = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: packageDir,
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.equal(res.error, undefined, 'the process exited by itself');
    assert.equal(res.stderr, '');
    assert.equal(res.status, 0);
    assert.deepEqual(res.stdout.trim().split('\n'), [
      bytesToHex(blake3(input)),
      bytesToHex(blake3(input, { context: 'ctx', dkLen: 40 })),
      bytesToHex(blake3(input)),
    ]);
  });

  it('the browser entry never reaches Node modules, and the worker bundle imports nothing', () => {
    const seen = new Set<string>();
    const specifiers: string[] = [];
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const [, spec] of readFileSync(file, 'utf8').matchAll(
        /(?:^|\n)\s*(?:import|export)[^'"]*?from\s*['"]([^'"]+)['"]/g,
      )) {
        if (spec.startsWith('.')) visit(resolve(dirname(file), spec));
        else specifiers.push(spec);
      }
    };
    visit(join(packageDir, 'dist/index.js'));
    assert.ok(seen.has(join(packageDir, 'dist/pool.js')), 'the walk followed the imports');
    assert.deepEqual([...new Set(specifiers)].sort(), [
      '@blake3-web/core',
      '@blake3-web/core/_assert',
      '@blake3-web/core/hazmat',
      'comlink',
    ]);
    const bundle = readFileSync(join(packageDir, 'dist/worker.bundle.js'), 'utf8');
    assert.doesNotMatch(bundle, /(?:^|\n)\s*import[\s{*]/, 'no import statements');
    assert.doesNotMatch(bundle, /\bimport\(/, 'no dynamic imports');
    assert.match(bundle, /hashRange/);
  });

  it('the worker as a string (for blob: URLs) is the same self-contained worker, and both say they are ready', async () => {
    const { WORKER_READY } = (await import(join(packageDir, 'dist/protocol.js'))) as { WORKER_READY: string };
    const { default: source } = (await import(join(packageDir, 'dist/worker-source.js'))) as { default: unknown };
    assert.equal(typeof source, 'string');
    const inline = source as string;
    assert.doesNotMatch(inline, /(?:^|[;\n}])\s*import\s*[\s{*"']/, 'no import statements');
    assert.doesNotMatch(inline, /\bimport\(|import\.meta/, 'nothing that needs a module URL');
    assert.doesNotMatch(inline, /sourceMappingURL/, 'no source map a blob: URL could not resolve');
    for (const code of [inline, readFileSync(join(packageDir, 'dist/worker.bundle.js'), 'utf8')]) {
      assert.ok(code.includes(JSON.stringify(WORKER_READY)), 'posts the ready message');
      assert.match(code, /hashRange/);
    }
  });

  it('package.json points every export at a built file and lists the worker entries as side effects', () => {
    const pkg = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
      exports: Record<string, string | Record<string, string>>;
      sideEffects: string[];
    };
    const targets = Object.values(pkg.exports).flatMap((t) => (typeof t === 'string' ? [t] : Object.values(t)));
    for (const target of targets) assert.ok(existsSync(join(packageDir, target)), `${target} exists`);
    assert.deepEqual(pkg.sideEffects.sort(), ['./dist/worker-node.js', './dist/worker.bundle.js', './dist/worker.js']);
  });
});
