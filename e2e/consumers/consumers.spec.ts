// The example apps, installed from packed tarballs and built by each bundler: a real file through
// <input type=file> hashes to the right BLAKE3 on the pool's default worker (hashFile) and on the
// upload package's hashing worker (WorkerHasher on startHashWorker()), with no configuration. A
// page whose Content-Security-Policy refuses blob: workers still works where the bundler emitted
// the worker files, and otherwise fails at once with the fix in the message.
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

/** What the page shows, per worker, once both hashes settled. */
type Hashed = { pool: string; upload: string; ms: number; workerUrls: string[] };

/** Opens the app, picks the file and returns what the page shows once both hashes settled. */
async function hashThroughPage(page: Page, url: string): Promise<Hashed> {
  const errors: string[] = [];
  const workerUrls: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('worker', (w) => workerUrls.push(w.url()));
  await page.goto(url);
  const picker = page.locator('input[type=file]');
  await expect(picker, "the app's script ran").toBeEnabled({ timeout: 30_000 });
  const outputs = { pool: page.locator('output#pool'), upload: page.locator('output#upload') };
  const started = Date.now();
  await picker.setInputFiles(inputFile());
  for (const [name, output] of Object.entries(outputs))
    await expect(output, `the ${name} hash settled (page errors: ${errors.join('; ') || 'none'})`).not.toHaveText(
      /^(hashing)?$/,
      { timeout: 60_000 },
    );
  return {
    pool: (await outputs.pool.textContent()) ?? '',
    upload: (await outputs.upload.textContent()) ?? '',
    ms: Date.now() - started,
    workerUrls,
  };
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
  test(`${app.name}: a picked file hashes to BLAKE3 on the pool's and the upload's default workers`, async ({
    page,
  }) => {
    const url = urls[app.name];
    expect(url, `global setup served ${app.name}`).toBeDefined();
    const { pool, upload, workerUrls } = await hashThroughPage(page, url);
    expect(pool, 'hashFile on the pool').toBe(expected);
    expect(upload, "WorkerHasher on the upload package's worker").toBe(expected);
    // Chromium reports every worker, also one whose file did not load. Where the bundler emitted
    // the files no worker starts from source; where it did not, both kinds do.
    if (test.info().project.name === 'chromium') {
      const fromSource = workerUrls.filter((w) => w.startsWith('blob:'));
      const shown = `workers started: ${workerUrls.join(', ')}`;
      if (app.worker === 'file') expect(fromSource, shown).toEqual([]);
      else expect(fromSource.length, shown).toBeGreaterThanOrEqual(2);
    }
  });
}

test.describe('a Content-Security-Policy without blob: workers', () => {
  test('webpack emitted the worker files: both hashes work', async ({ page }) => {
    await refuseBlobWorkers(page);
    const { pool, upload } = await hashThroughPage(page, urls['webpack']);
    expect([pool, upload]).toEqual([expected, expected]);
  });

  test('esbuild left the worker files out: WorkerStartError at once, naming worker-src blob:', async ({ page }) => {
    await refuseBlobWorkers(page);
    const { pool, upload, ms } = await hashThroughPage(page, urls['esbuild']);
    expect(pool).toMatch(/^WorkerStartError: the pool's worker did not start: .*worker\.bundle\.js did not load/);
    expect(upload).toMatch(
      /^WorkerStartError: the upload's hashing worker did not start: .*hash-worker\.bundle\.js did not load/,
    );
    for (const shown of [pool, upload]) expect(shown).toContain("worker-src 'self' blob:");
    // Well before the liveness probe (10 s) or the hasher's start timeout (15 s) could have ended it.
    expect(ms).toBeLessThan(8_000);
  });

  test("esbuild, with the README's line (worker-src 'self' blob:): both hashes work", async ({ page }) => {
    await workerPolicy(page, "'self' blob:");
    const { pool, upload } = await hashThroughPage(page, urls['esbuild']);
    expect([pool, upload]).toEqual([expected, expected]);
  });

  test("Vite 7 dev with the README's line (optimizeDeps.exclude): both hashes work", async ({ page }) => {
    await refuseBlobWorkers(page);
    const { pool, upload } = await hashThroughPage(page, urls['vite7 dev with optimizeDeps.exclude']);
    expect([pool, upload]).toEqual([expected, expected]);
  });

  test('Vite 7 dev pre-bundled the packages: WorkerStartError at once, naming optimizeDeps.exclude', async ({
    page,
  }) => {
    await refuseBlobWorkers(page);
    const { pool, upload, ms } = await hashThroughPage(page, urls['vite7 dev']);
    expect(pool).toMatch(/^WorkerStartError: .*\/\.vite\/deps\/worker\.bundle\.js/);
    expect(pool).toContain("optimizeDeps: { exclude: ['@blake3-web/worker'] }");
    expect(upload).toMatch(/^WorkerStartError: .*\/\.vite\/deps\/hash-worker\.bundle\.js/);
    expect(upload).toContain("optimizeDeps: { exclude: ['@blake3-web/upload'] }");
    expect(ms).toBeLessThan(8_000);
  });
});
