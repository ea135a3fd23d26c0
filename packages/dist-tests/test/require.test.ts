// require() of every published entry point in Node (require of ES modules: Node 20.19+, 22.12+).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ENTRIES: Record<string, string> = {
  '@blake3-web/core': 'blake3',
  '@blake3-web/core/hazmat': 'hashSubtree',
  '@blake3-web/worker': 'hashFile',
  '@blake3-web/stream': 'Blake3Stream',
  '@blake3-web/workbox': 'Blake3IntegrityPlugin',
  '@blake3-web/cli': 'main',
  '@blake3-web/upload': 'UploadHasher',
  '@blake3-web/download': 'download',
  '@blake3-web/download/directory-store': 'directoryStore',
};

it(`require() in Node ${process.versions.node} loads every entry point, and the hash works through it`, () => {
  const code = `const entries = ${JSON.stringify(ENTRIES)};
const out = Object.entries(entries).map(([id, name]) => typeof require(id)[name]);
const core = require('@blake3-web/core');
out.push(core.bytesToHex(core.blake3('abc')));
console.log(JSON.stringify(out));`;
  const r = spawnSync(process.execPath, ['-e', code], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), [
    ...Object.values(ENTRIES).map(() => 'function'),
    '6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85',
  ]);
});
