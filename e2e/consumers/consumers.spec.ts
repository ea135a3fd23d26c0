// The example apps, installed from packed tarballs and built by each bundler: a real file through
// <input type=file> hashes on the package's default worker to the right BLAKE3, with no
// configuration. A page whose Content-Security-Policy refuses blob: workers still works where
// the bundler emitted the worker file, and otherwise fails at once with the fix in the message.
import { blake3, bytesToHex } from '@blake3-web/core';
import { paint } from '@blake3-web/testkit';
import { expect, test, type Page } from '@playwright/test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

import { APPS, URLS_ENV } from './apps.ts';

const urls = JSON.parse(process.env[URLS_ENV] ?? '{}') as Record<string, string>;

// Over the pool's inline limit (64 KiB) and over one subtree, so several workers take part.
const input = paint(3 * 1024 * 1024 + 4321);
const expected = bytesToHex(blake3(input));

/** A file of this test's own: another test rewriting a shared one would change it mid-hash. */
function inputFile(): string {
  const path = test.info().outputPath('input.bin');
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, input);
  return path;
}

type Hashed = { shown: string; ms: number; workerUrls: string[] };

/** Opens the app, picks the file and returns what the page shows once the hash settled. */
async function hashThroughPage(page: Page, url: string): Promise<Hashed> {
  const errors: string[] = [];
  const workerUrls: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('worker', (w) => workerUrls.push(w.url()));
  await page.goto(url);
  const picker = page.locator('input[type=file]');
  await expect(picker, "the app's script ran").toBeEnabled({ timeout: 30_000 });
  const output = page.locator('output');
  const started = Date.now();
  await picker.setInputFiles(inputFile());
  await expect(output, `the page settled (page errors: ${errors.join('; ') || 'none'})`).not.toHaveText(
    /^(hashing)?$/,
    { timeout: 60_000 },
  );
  return { shown: (await output.textContent()) ?? '', ms: Date.now() - started, workerUrls };
}

/** Serves the app's pages with a Content-Security-Policy of `workerSrc` for workers. */
async function workerPolicy(page: Page, workerSrc: string): Promise<void> {
  await page.route(
    (url) => url.pathname === '/' || url.pathname.endsWith('.html'),
    async (route) => {
      const response = await route.fetch();
      await route.fulfill({
        response,
        headers: { ...response.headers(), 'content-security-policy': `worker-src ${workerSrc}` },
      });
    },
  );
}

const refuseBlobWorkers = (page: Page) => workerPolicy(page, "'self'");

for (const app of APPS) {
  test(`${app.name}: hashFile of a picked file on the default worker is BLAKE3`, async ({ page }) => {
    const url = urls[app.name];
    expect(url, `global setup served ${app.name}`).toBeDefined();
    const { shown, workerUrls } = await hashThroughPage(page, url);
    expect(shown).toBe(expected);
    // Chromium reports every worker, also one whose file did not load. Where the bundler emitted
    // the file no worker starts from source; where it did not, one does.
    if (test.info().project.name === 'chromium') {
      const fromSource = workerUrls.filter((w) => w.startsWith('blob:'));
      if (app.worker === 'file') expect(fromSource, `workers started: ${workerUrls.join(', ')}`).toEqual([]);
      else expect(fromSource.length, `workers started: ${workerUrls.join(', ')}`).toBeGreaterThan(0);
    }
  });
}

test.describe('a Content-Security-Policy without blob: workers', () => {
  test('webpack emitted the worker file: the hash works', async ({ page }) => {
    await refuseBlobWorkers(page);
    const { shown } = await hashThroughPage(page, urls['webpack']);
    expect(shown).toBe(expected);
  });

  test('esbuild left the worker file out: WorkerStartError at once, naming worker-src blob:', async ({ page }) => {
    await refuseBlobWorkers(page);
    const { shown, ms } = await hashThroughPage(page, urls['esbuild']);
    expect(shown).toMatch(/^WorkerStartError: the pool's worker did not start: .*worker\.bundle\.js did not load/);
    expect(shown).toContain("worker-src 'self' blob:");
    // Well before the liveness probe (10 s) could have noticed a silent worker.
    expect(ms).toBeLessThan(8_000);
  });

  test("esbuild, with the README's line (worker-src 'self' blob:): the hash works", async ({ page }) => {
    await workerPolicy(page, "'self' blob:");
    const { shown } = await hashThroughPage(page, urls['esbuild']);
    expect(shown).toBe(expected);
  });

  test("Vite 7 dev with the README's line (optimizeDeps.exclude): the hash works", async ({ page }) => {
    await refuseBlobWorkers(page);
    const { shown } = await hashThroughPage(page, urls['vite7 dev with optimizeDeps.exclude']);
    expect(shown).toBe(expected);
  });

  test('Vite 7 dev pre-bundled the package: WorkerStartError at once, naming optimizeDeps.exclude', async ({
    page,
  }) => {
    await refuseBlobWorkers(page);
    const { shown, ms } = await hashThroughPage(page, urls['vite7 dev']);
    expect(shown).toMatch(/^WorkerStartError: .*\/\.vite\/deps\/worker\.bundle\.js/);
    expect(shown).toContain("optimizeDeps: { exclude: ['@blake3-web/worker'] }");
    expect(ms).toBeLessThan(8_000);
  });
});
