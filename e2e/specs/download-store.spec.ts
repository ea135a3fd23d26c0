// The browser stores of @blake3-web/download in every engine: the default one (OPFS through the
// store's worker where the engine has it, IndexedDB where not) and IndexedDB everywhere. Groups
// are recorded only once their bytes are stored, survive a reload that interrupts a download,
// read back as written, and become the content's Blob; a full origin quota is the package's
// quota error with nothing recorded; a private window that refuses OPFS falls back to IndexedDB.
import { baoEncode } from '@blake3-web/stream';
import { paint } from '@blake3-web/testkit';

import { BROWSER_PATHS } from '../../scripts/browser-paths.mjs';
import type { EnginePage } from '../../servers/engine-page.ts';
import { expect, skipWebKit, test } from '../../servers/engine-test.ts';
import { startRangeSources } from '../../servers/range-sources.ts';

const GROUP = 16 * 1024;
/** Five whole groups and a short last one. */
const SIZE = 5 * GROUP + 1000;

async function openDownloadPage(page: EnginePage): Promise<void> {
  await page.goto('/servers/pages/download.html');
  await page.waitForFunction(() => globalThis.blake3Download !== undefined || globalThis.blake3WebError !== undefined);
  const error = await page.evaluate(() => globalThis.blake3WebError ?? null);
  if (error !== null) throw new Error(`@blake3-web/download failed to load in ${page.engine}: ${error}`);
}

type Kind = 'browser' | 'idb';

for (const kind of ['browser', 'idb'] as const) {
  test(`${kind} store: a reload between writes keeps only committed groups; the rest completes into the content`, async ({
    enginePage: page,
  }) => {
    await openDownloadPage(page);
    const before = await page.evaluate(
      async ({ kind, size, group }: { kind: Kind; size: number; group: number }) => {
        const { core, download, paint, opfsFiles } = globalThis.blake3Download!;
        const content = paint(size);
        const root = core.bytesToHex(core.blake3(content));
        const store = kind === 'idb' ? download.idbStore({ database: 'e2e-store' }) : download.browserStore();
        await store.remove(root);
        const shape = { size, chunkGroupLog: 4 };
        const stored = await store.open(root, shape);
        const fresh = stored.recorded.length;
        await stored.write(0, content.subarray(0, 2 * group));
        await stored.commit([{ first: 0, count: 2 }]);
        await stored.write(5 * group, content.subarray(5 * group));
        await stored.commit([{ first: 5, count: 1 }]);
        // Written, never committed: the reload comes first.
        await stored.write(2 * group, content.subarray(2 * group, 3 * group));
        await stored.writeOutboard(new Uint8Array([1, 2, 3]));
        return { root, fresh, files: kind === 'browser' ? await opfsFiles() : null };
      },
      { kind, size: SIZE, group: GROUP },
    );
    expect(before.fresh).toBe(0);
    if (kind === 'browser' && page.engine !== 'webkit')
      expect(before.files).toEqual([`${before.root}.data`, `${before.root}.obao`, `${before.root}.record`]);
    if (kind === 'browser' && page.engine === 'webkit') expect(before.files).toBeNull(); // IndexedDB there

    await openDownloadPage(page); // the reload: the page and its store's worker are gone mid-download
    const after = await page.evaluate(
      async ({ kind, size, group, root }: { kind: Kind; size: number; group: number; root: string }) => {
        const { download, paint, opfsFiles } = globalThis.blake3Download!;
        const content = paint(size);
        const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);
        const store = kind === 'idb' ? download.idbStore({ database: 'e2e-store' }) : download.browserStore();
        const listed = (await store.list()).find((d) => d.root === root);
        const stored = await store.open(root, { size, chunkGroupLog: 4 });
        const recorded = stored.recorded.map((r) => [r.first, r.count]);
        const readBack =
          same(await stored.read(0, 2 * group), content.subarray(0, 2 * group)) &&
          same(await stored.read(5 * group, 1000), content.subarray(5 * group)) &&
          same(await stored.read(group - 10, 20), content.subarray(group - 10, group + 10));
        const outboard = Array.from((await stored.readOutboard()) ?? []);
        await stored.write(2 * group, content.subarray(2 * group, 5 * group));
        await stored.commit([{ first: 2, count: 3 }]);
        const blob = await stored.blob();
        const whole = same(new Uint8Array(await blob.arrayBuffer()), content);
        await stored.close();
        const complete = (await store.list()).find((d) => d.root === root);
        // Another size for the same root: what was stored goes.
        const other = await store.open(root, { size: size + 1, chunkGroupLog: 4 });
        const otherRecorded = other.recorded.length;
        await other.close();
        const removed = await store.remove(root);
        const gone = (await store.list()).some((d) => d.root === root);
        return {
          listed,
          recorded,
          readBack,
          outboard,
          whole,
          blobSize: blob.size,
          complete,
          otherRecorded,
          removed,
          gone,
          files: kind === 'browser' ? await opfsFiles() : null,
        };
      },
      { kind, size: SIZE, group: GROUP, root: before.root },
    );
    expect(after.listed).toEqual({
      root: before.root,
      size: SIZE,
      chunkGroupLog: 4,
      recordedBytes: 2 * GROUP + 1000,
      complete: false,
    });
    expect(after.recorded).toEqual([
      [0, 2],
      [5, 1],
    ]);
    expect(after.readBack).toBe(true);
    expect(after.outboard).toEqual([1, 2, 3]);
    expect(after.whole).toBe(true);
    expect(after.blobSize).toBe(SIZE);
    expect(after.complete).toEqual({
      root: before.root,
      size: SIZE,
      chunkGroupLog: 4,
      recordedBytes: SIZE,
      complete: true,
    });
    expect(after.otherRecorded).toBe(0);
    expect(after.removed).toBe(true);
    expect(after.gone).toBe(false);
    if (kind === 'browser' && page.engine !== 'webkit') expect(after.files).toEqual([]);
  });
}

test.describe('a full origin quota', () => {
  skipWebKit('the quota is set through the Chrome DevTools Protocol');
  test.skip(({ engine }) => engine !== 'chromium', 'Storage.overrideQuotaForOrigin is Chromium’s');

  for (const kind of ['browser', 'idb'] as const) {
    test(`${kind} store: the write past it is a DownloadQuotaError, and nothing of it is recorded`, async ({
      enginePage,
      browser,
    }) => {
      void enginePage; // the fixture's own page is not used: this one needs a CDP session
      const context = await browser.newContext();
      const page = await context.newPage();
      try {
        await page.goto(new URL('/servers/pages/download.html', process.env.BLAKE3_E2E_URL).href);
        await page.waitForFunction(() => globalThis.blake3Download !== undefined);
        const cdp = await context.newCDPSession(page);
        await cdp.send('Storage.overrideQuotaForOrigin', {
          origin: new URL(process.env.BLAKE3_E2E_URL!).origin,
          quotaSize: 2 * 1024 * 1024,
        });
        const outcome = await page.evaluate(async (kind: Kind) => {
          const { core, download } = globalThis.blake3Download!;
          const size = 8 * 1024 * 1024;
          // Random bytes: Chromium compresses IndexedDB values, and painted ones would fit.
          const content = new Uint8Array(size);
          for (let i = 0; i < size; i += 65536) crypto.getRandomValues(content.subarray(i, i + 65536));
          const root = core.bytesToHex(core.blake3(content));
          const store = kind === 'idb' ? download.idbStore({ database: 'e2e-quota' }) : download.browserStore();
          await store.remove(root);
          const stored = await store.open(root, { size, chunkGroupLog: 4 });
          await stored.write(0, content.subarray(0, 65536));
          await stored.commit([{ first: 0, count: 4 }]);
          let error: { name: string; code: string; instance: boolean } | null = null;
          try {
            for (let at = 65536; at < size; at += 1 << 20) {
              await stored.write(at, content.subarray(at, Math.min(size, at + (1 << 20))));
            }
            await stored.commit([{ first: 4, count: size / 16384 - 4 }]);
          } catch (e) {
            error = {
              name: (e as Error).name,
              code: (e as { code: string }).code,
              instance: e instanceof download.DownloadQuotaError,
            };
          }
          await stored.close().catch(() => undefined);
          const again = await store.open(root, { size, chunkGroupLog: 4 });
          const recorded = again.recorded.map((r) => [r.first, r.count]);
          await again.close();
          await store.remove(root);
          return { error, recorded };
        }, kind);
        expect(outcome.error).toEqual({ name: 'DownloadQuotaError', code: 'ERR_DOWNLOAD_QUOTA', instance: true });
        expect(outcome.recorded).toEqual([[0, 4]]);
      } finally {
        await context.close();
      }
    });
  }
});

test.describe('a private window that refuses OPFS', () => {
  skipWebKit('the window is Firefox’s, started by Playwright');
  test.skip(({ engine }) => engine !== 'firefox', 'Firefox’s private windows refuse navigator.storage.getDirectory');

  test('the default store falls back to IndexedDB, and download() works there', async ({ playwright, enginePage }) => {
    void enginePage;
    const browser = await playwright.firefox.launch({
      channel: 'moz-firefox',
      executablePath: BROWSER_PATHS.firefox,
      firefoxUserPrefs: { 'browser.privatebrowsing.autostart': true },
    });
    const size = 200 * 1024 + 3;
    const content = paint(size).map((b) => b ^ 0x66);
    const { hash, encoded } = baoEncode(content, { outboard: true, chunkGroupLog: 4 });
    const root = Buffer.from(hash).toString('hex');
    const sources = await startRangeSources(new Map([['p.bin', { content, outboard: encoded }]]), 1);
    try {
      const page = await browser.newPage();
      await page.goto(new URL('/servers/pages/download.html', process.env.BLAKE3_E2E_URL).href);
      await page.waitForFunction(() => globalThis.blake3Download !== undefined);
      const outcome = await page.evaluate(
        async ({ url, root, size }) => {
          const refused = await navigator.storage.getDirectory().then(
            () => null,
            (e: Error) => e.name,
          );
          const run = await globalThis.blake3Download!.run({ sources: [url], root, size, salt: 0x66 });
          const inIdb = (await globalThis.blake3Download!.download.idbStore().list()).find((d) => d.root === root);
          return { refused, run, inIdb: inIdb ?? null };
        },
        { url: `${sources.urls[0]}p.bin`, root, size },
      );
      expect(outcome.refused).toBe('SecurityError');
      expect(outcome.run).toEqual({ ok: true, size, same: true });
      expect(outcome.inIdb).toEqual({ root, size, chunkGroupLog: 4, recordedBytes: size, complete: true });
    } finally {
      await sources.close();
      await browser.close();
    }
  });
});
