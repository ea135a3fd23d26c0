/// <reference path="../../../servers/pages/page-globals.d.ts" />
/// <reference path="../../../servers/pages/worker-globals.d.ts" />
// A real 512 MiB file from disk through <input type=file>, hashed by the pool in Chromium and
// Firefox (Playwright's setInputFiles): throughput by pool size, and the hash against Node's.
import { blake3, bytesToHex } from '@blake3-web/core';
import { createReadStream, existsSync, statSync, writeFileSync } from 'node:fs';

import { fixtureUrl } from '../../../servers/engine-page.ts';
import { expect, skipWebKit, test } from '../../../servers/engine-test.ts';

const path = '/tmp/blake3-web-512m.bin';

test.describe('big file', () => {
  skipWebKit('setInputFiles');
  test('a 512 MiB File from disk', async ({ page, browserName }) => {
    test.setTimeout(600_000);
    const MiB = 1024 * 1024;
    if (!existsSync(path) || statSync(path).size !== 512 * MiB) {
      const piece = new Uint8Array(512 * MiB);
      for (let i = 0; i < piece.length; i++) piece[i] = (i * 31 + (i >>> 11)) % 251;
      writeFileSync(path, piece);
    }
    const hasher = blake3.create();
    for await (const chunk of createReadStream(path, { highWaterMark: 16 * MiB })) hasher.update(chunk as Uint8Array);
    const expected = bytesToHex(hasher.digest());
    await page.goto(fixtureUrl('/servers/pages/worker.html'));
    await page.waitForFunction(() => globalThis.blake3WebWorker !== undefined);
    await page.setInputFiles('#file', path);
    const r = await page.evaluate(async () => {
      const { core, worker } = globalThis.blake3WebWorker!;
      const file = (document.getElementById('file') as HTMLInputElement).files![0];
      const rows: { label: string; ms: number; mbps: number; hex: string }[] = [];
      const time = async (label: string, run: () => Promise<Uint8Array>) => {
        const t0 = performance.now();
        const hex = core.bytesToHex(await run());
        const ms = performance.now() - t0;
        rows.push({ label, ms: Math.round(ms), mbps: Math.round(file.size / 1e6 / (ms / 1e3)), hex });
      };
      const pools = [1, 2, 4].map((size) => [size, worker.createPool({ size })] as const);
      for (const [, pool] of pools) await pool.hashBlob(new Blob([new Uint8Array(4 * 1024 * 1024)]));
      for (let round = 0; round < 2; round++) {
        await time('one thread, 16 MiB reads', async () => {
          const h = core.blake3.create();
          for (let a = 0; a < file.size; a += 16 * 1024 * 1024)
            h.update(new Uint8Array(await file.slice(a, a + 16 * 1024 * 1024).arrayBuffer()));
          return h.digest();
        });
        for (const [size, pool] of pools) await time(`pool of ${size}`, () => pool.hashBlob(file));
      }
      for (const [, pool] of pools) pool.terminate();
      return rows;
    });
    console.log(browserName, JSON.stringify(r.map(({ hex: _, ...row }) => row)));
    for (const row of r) expect(row.hex, row.label).toBe(expected);
  });
});
