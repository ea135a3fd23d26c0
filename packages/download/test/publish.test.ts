// The publishing side: an outboard written as the upload server and the command line write it
// (bounded memory, parents on disk), byte for byte `bao encode --outboard` with 1 KiB groups,
// and accepted by download() with any group size.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { OutboardBuilder } from '@blake3-web/upload/_internal';
import { bytesToHex } from '@blake3-web/core';
import { Random, testSeed } from '@blake3-web/testkit';
import { download } from '../src/index.ts';
import { startMirrors } from './_range-server.ts';
import { bytesOf } from './_fixture.ts';

const dir = mkdtempSync(join(tmpdir(), 'blake3-download-publish-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const seed = testSeed();
// The pinned reference, as the stream package's Bao tests find it (a module without types).
const setup = '../../stream/setup/bao-setup.mjs';
const { baoPath, baoInstall } = (await import(setup)) as { baoPath: string; baoInstall: string };

async function writeOutboard(content: Uint8Array, chunkGroupLog: number, name: string) {
  const builder = new OutboardBuilder(join(dir, `${name}.parents`), chunkGroupLog);
  for (let at = 0; at < content.length; at += 100_000) {
    builder.update(content.subarray(at, at + 100_000));
    if (builder.shouldFlush) await builder.flush();
  }
  const root = bytesToHex(builder.root());
  await builder.writeOutboard(join(dir, `${name}.obao`));
  return { root, outboard: new Uint8Array(readFileSync(join(dir, `${name}.obao`))) };
}

describe(`published outboards (seed ${seed})`, () => {
  it('with 1 KiB groups equal bao encode --outboard', async () => {
    assert.ok(existsSync(baoPath), `bao is not installed: run node scripts/bootstrap.mjs --test (${baoInstall})`);
    const random = new Random(seed);
    for (const size of [0, 1, 1024, 1025, random.int(2000, 3_000_000)]) {
      const content = random.bytes(size);
      const file = join(dir, `c${size}`);
      writeFileSync(file, content);
      const { outboard, root } = await writeOutboard(content, 0, `c${size}`);
      execFileSync(baoPath, ['encode', file, '--outboard', `${file}.bao`]);
      assert.deepEqual(outboard, new Uint8Array(readFileSync(`${file}.bao`)), `size ${size}`);
      assert.equal(root, execFileSync(baoPath, ['hash', file], { encoding: 'utf8' }).trim().split(/\s+/)[0]);
    }
  });

  for (const chunkGroupLog of [0, 4, 6]) {
    it(`with groups of ${1024 << chunkGroupLog} bytes serve a verified download`, async () => {
      const content = new Random(seed + chunkGroupLog).bytes(700_001);
      const { outboard, root } = await writeOutboard(content, chunkGroupLog, `g${chunkGroupLog}`);
      const mirrors = await startMirrors(content, outboard, [{}]);
      try {
        assert.deepEqual(await bytesOf(await download(mirrors.urls, { root, chunkGroupLog })), content);
      } finally {
        await mirrors.close();
      }
    });
  }
});
