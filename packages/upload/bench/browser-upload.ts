// Uploads painted Files to tus servers on 127.0.0.1 from Chromium and Firefox: through the
// adapter (hash while uploading, to the verifying store), tus alone (to a plain FileStore), and
// @blake3-web/worker's hashFile first, then tus (to the verifying store). Rounds interleave the
// variants; medians are printed with the load average. With a link rate (Mbit/s), every upload
// goes through a proxy that carries the bytes at that rate (bench/_link.ts). Not a test.
//   node --import tsx bench/browser-upload.ts [MiB] [rounds] [engines: chromium,firefox]
//     [variants: plain,hash,hashFile] [link Mbit/s]
import { FileStore } from '@tus/file-store';
import { Server } from '@tus/server';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, firefox, type Browser } from 'playwright-core';
import { startFixtureServer } from '../../../servers/fixture-server.ts';
import { LAUNCH_OPTIONS } from '../../../scripts/browser-paths.mjs';
import { listenTus, startTusServer } from '../test/_tus-server.ts';
import { median, writePaintedFile } from './_bench-file.ts';
import { startLink } from './_link.ts';

const MiB = 1024 * 1024;
// pnpm passes on the `--` of `pnpm run bench:browsers -- 1024 3 chromium`.
const args = process.argv.slice(2).filter((a) => a !== '--');
const size = Number(args[0] ?? 1024) * MiB;
const rounds = Number(args[1] ?? 3);
const engines = (args[2] ?? 'chromium,firefox').split(',') as ('chromium' | 'firefox')[];
const chunkSize = 8 * MiB;
const VARIANTS = (args[3] ?? 'plain,hash,hashFile').split(',') as ('plain' | 'hash' | 'hashFile')[];
const linkMbit = args[4] === undefined ? undefined : Number(args[4]);

type BenchResult = { ok: unknown; ms: number; maxGapMs: number; gapsOver50: number };
/** What servers/pages/upload.html exposes, as far as this script uses it. */
type UploadPage = { blake3Upload?: { bench(o: object): Promise<BenchResult> }; blake3WebError?: string };

// The file is on disk and picked through the page's file input, as a user's would be (a painted
// in-memory File of 1 GiB is not something Chromium uploads reliably).
const fileDir = mkdtempSync(join(tmpdir(), 'blake3-upload-bench-'));
const filePath = join(fileDir, 'bench.bin');
writePaintedFile(filePath, size);

const fixture = await startFixtureServer();
const plainDir = mkdtempSync(join(tmpdir(), 'blake3-tus-plain-'));
const plainServer = await listenTus(new Server({ path: '/files', datastore: new FileStore({ directory: plainDir }) }));
const verifyingServer = await startTusServer();
const linkRate = linkMbit === undefined ? undefined : (linkMbit * 1e6) / 8;
const plain = linkRate ? await startLink(plainServer.endpoint, linkRate) : plainServer;
const verifying = linkRate ? await startLink(verifyingServer.endpoint, linkRate) : verifyingServer;
console.log(
  `${size / MiB} MiB, chunkSize ${chunkSize / MiB} MiB, ${rounds} rounds, ${linkMbit ? `a ${linkMbit} Mbit/s link` : 'no link model'}; load average before: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
try {
  for (const engine of engines) {
    const browser: Browser = await { chromium, firefox }[engine].launch(LAUNCH_OPTIONS[engine]);
    const page = await browser.newPage();
    await page.goto(`${fixture.url}/servers/pages/upload.html`);
    await page.waitForFunction(
      () =>
        (globalThis as UploadPage).blake3Upload !== undefined ||
        (globalThis as UploadPage).blake3WebError !== undefined,
    );
    await page.setInputFiles('#file', filePath);
    const results: Record<string, { ms: number[]; gap: number[]; over50: number[] }> = {};
    for (let r = 0; r < rounds; r++) {
      for (const variant of VARIANTS) {
        const endpoint = variant === 'plain' ? plain.endpoint : verifying.endpoint;
        const out = await page.evaluate((o) => (globalThis as UploadPage).blake3Upload!.bench(o), {
          variant,
          endpoint,
          name: `bench-${variant}-${r}.bin`,
          size,
          chunkSize,
        });
        if (out.ok !== true) throw new Error(`${engine} ${variant}: ${String(out.ok)}`);
        console.log(`  round ${r + 1} ${variant}: ${(out.ms / 1000).toFixed(2)} s`);
        const entry = (results[variant] ??= { ms: [], gap: [], over50: [] });
        entry.ms.push(out.ms);
        entry.gap.push(out.maxGapMs);
        entry.over50.push(out.gapsOver50);
      }
    }
    const base = median(results[VARIANTS[0]].ms);
    for (const variant of VARIANTS) {
      const { ms, gap, over50 } = results[variant];
      console.log(
        `${engine} ${variant.padEnd(8)} median ${(median(ms) / 1000).toFixed(2)} s  ${(size / MiB / (median(ms) / 1000)).toFixed(0)} MiB/s  x${(median(ms) / base).toFixed(2)} of ${VARIANTS[0]}  longest main-thread gap ${median(gap).toFixed(0)} ms, gaps > 50 ms: ${median(over50)}`,
      );
    }
    await browser.close();
  }
} finally {
  console.log(
    `load average after: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  await Promise.all([fixture.close(), plain.close(), verifying.close()]);
  if (linkRate) await Promise.all([plainServer.close(), verifyingServer.close()]);
  for (const d of [fileDir, plainDir]) rmSync(d, { recursive: true, force: true });
}
