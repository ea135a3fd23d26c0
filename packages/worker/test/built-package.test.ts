// The built package as an application gets it: default workers (dist/worker.js through
// worker_threads), the shared pool behind hashFile, and a process that exits on its own.
import { blake3, bytesToHex } from '@blake3-web/core';
import { paint } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
    const res = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: packageDir, encoding: 'utf8', timeout: 120_000 });
    assert.equal(res.error, undefined, 'the process exited by itself');
    assert.equal(res.stderr, '');
    assert.equal(res.status, 0);
    assert.deepEqual(res.stdout.trim().split('\n'), [
      bytesToHex(blake3(input)),
      bytesToHex(blake3(input, { context: 'ctx', dkLen: 40 })),
      bytesToHex(blake3(input)),
    ]);
  });
});
