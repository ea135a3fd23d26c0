// A download killed at a random instant (SIGKILL, no chance to clean up) resumes: the next
// download fetches exactly the groups the record did not hold, and every recorded group holds
// the content's bytes.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { Random, testSeed } from '@blake3-web/testkit';
import { download } from '../src/index.ts';
import { directoryStore } from '../src/directory-store.ts';
import { startMirrors } from './_range-server.ts';
import { bytesOf, fixture } from './_fixture.ts';
import { assertRecordedIsContent } from './_recorded.ts';

const here = dirname(fileURLToPath(import.meta.url));
const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const seed = testSeed();

/** The arguments that make this runtime's binary run a TypeScript file. */
function runScript(file: string): string[] {
  const versions = process.versions as { deno?: string; bun?: string };
  if (versions.deno) return ['run', '--allow-all', '--sloppy-imports', file];
  if (versions.bun) return ['run', file];
  return ['--import', 'tsx', file];
}

describe(`resume after SIGKILL (seed ${seed})`, () => {
  for (let round = 0; round < 3; round++) {
    it(`round ${round}: fetches only what the record lacks`, { timeout: 120_000 }, async () => {
      const random = new Random(seed + 100 + round);
      const { content, root, outboard } = fixture(3_000_000 + random.int(0, 50_000), seed + round);
      const slow = await startMirrors(content, outboard, [{ bytesPerSecond: 1_500_000 }]);
      const dir = mkdtempSync(join(tmpdir(), 'blake3-download-kill-'));
      dirs.push(dir);
      const store = directoryStore(dir);
      try {
        const child = spawn(
          process.execPath,
          [...runScript(join(here, '_download-child.ts')), slow.urls[0], root, dir, '65536'],
          { stdio: ['ignore', 'pipe', 'inherit'] },
        );
        const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
        // Killed once some bytes are served, at a random moment after.
        const wanted = random.int(200_000, 1_500_000);
        while (slow.stats[0].contentBytes < wanted) await new Promise((r) => setTimeout(r, 10));
        child.kill('SIGKILL');
        assert.equal(await exited, null);
      } finally {
        await slow.close();
      }
      const [stored] = await store.list();
      assert.ok(stored && stored.recordedBytes < content.length, 'killed before the end');
      await assertRecordedIsContent(store, root, content, 4);
      const fresh = await startMirrors(content, outboard, [{}]);
      try {
        const blob = await download(fresh.urls, { root, store, rangeSize: 65536 });
        assert.deepEqual(await bytesOf(blob), content);
        assert.equal(fresh.stats[0].contentBytes, content.length - stored.recordedBytes);
        // The outboard was kept beside the content: not fetched again.
        assert.equal(fresh.stats[0].outboardRequests, 0);
      } finally {
        await fresh.close();
      }
    });
  }

  it('checks stored bytes again: a group changed on disk is fetched again, not handed out', async () => {
    const { content, root, outboard } = fixture(500_000, seed + 9);
    const dir = mkdtempSync(join(tmpdir(), 'blake3-download-tamper-'));
    dirs.push(dir);
    const store = directoryStore(dir);
    const first = await startMirrors(content, outboard, [{}]);
    try {
      await download(first.urls, { root, store });
    } finally {
      await first.close();
    }
    const { openSync, writeSync, closeSync } = await import('node:fs');
    const fd = openSync(join(dir, `${root}.data`), 'r+');
    writeSync(fd, new Uint8Array([content[100_000] ^ 1]), 0, 1, 100_000);
    closeSync(fd);
    const second = await startMirrors(content, outboard, [{}]);
    try {
      const blob = await download(second.urls, { root, store });
      assert.deepEqual(await bytesOf(blob), content);
      // Only the changed 16 KiB group came again.
      assert.equal(second.stats[0].contentBytes, 16384);
    } finally {
      await second.close();
    }
  });

  it('replaces a damaged outboard in the store with one that proves the root', async () => {
    const { content, root, outboard } = fixture(300_000, seed + 10);
    const dir = mkdtempSync(join(tmpdir(), 'blake3-download-obao-'));
    dirs.push(dir);
    const store = directoryStore(dir);
    const mirrors = await startMirrors(content, outboard, [{}]);
    try {
      await download(mirrors.urls, { root, store });
      const path = join(dir, `${root}.obao`);
      const damaged = readFileSync(path);
      damaged[40] ^= 1;
      writeFileSync(path, damaged);
      assert.deepEqual(await bytesOf(await download(mirrors.urls, { root, store })), content);
      assert.equal(mirrors.stats[0].outboardRequests, 2);
      assert.deepEqual(new Uint8Array(readFileSync(path)), outboard);
      await download(mirrors.urls, { root, store });
      assert.equal(mirrors.stats[0].outboardRequests, 2);
      assert.equal(mirrors.stats[0].contentBytes, content.length);
    } finally {
      await mirrors.close();
    }
  });
});
