// The verified-download example (examples/download-vite), installed from the packed tarballs and
// run by Vite's dev server and from its build: the package README's first snippet downloads the
// site's Parquet table against the root pinned at build time, and hyparquet, given the package's
// fetch-shaped function, reads rows from it unchanged. A byte changed on the wire fails both with
// a DownloadError instead of handing out the changed bytes.
import { expect, test, type Page } from '@playwright/test';

import { DOWNLOAD_APPS, URLS_ENV } from './apps.ts';

const urls = JSON.parse(process.env[URLS_ENV] ?? '{}') as Record<string, string>;

const names = ['Lyon', 'Oslo', 'Quito', 'Perth', 'Accra', 'Hanoi', 'Cusco', 'Turku'];
/** The rows examples/download-vite/scripts/publish-data.mjs writes, as the page shows them. */
const expectedRows = JSON.stringify(
  [41_000, 41_001, 41_002].map((i) => ({
    id: i,
    city: `${names[i % names.length]} ${i}`,
    population: (i * 7919) % 1_000_003,
  })),
);

async function outputs(page: Page): Promise<{ download: string; parquet: string }> {
  const download = page.locator('output#download');
  const parquet = page.locator('output#parquet');
  for (const output of [download, parquet]) await expect(output).not.toHaveText(/^(working)?$/, { timeout: 60_000 });
  return { download: (await download.textContent()) ?? '', parquet: (await parquet.textContent()) ?? '' };
}

for (const app of DOWNLOAD_APPS) {
  test(`${app.name}: download() and hyparquet through the verified fetch load the published table`, async ({
    page,
  }) => {
    const url = urls[app.name];
    expect(url, `global setup served ${app.name}`).toBeDefined();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(url);
    const shown = await outputs(page);
    expect(shown.download).toMatch(/^\d+ bytes$/);
    expect(shown.parquet).toBe(expectedRows);
    expect(errors).toEqual([]);
  });

  test(`${app.name}: a byte changed on the wire is a DownloadError, never the changed bytes`, async ({ page }) => {
    const url = urls[app.name];
    // Every range of the table arrives with one byte flipped (the outboard is left alone).
    await page.route(
      (u) => u.pathname.endsWith('/cities.parquet'),
      async (route) => {
        const response = await route.fetch();
        const body = Buffer.from(await response.body());
        if (body.length > 0) body[body.length >> 1] ^= 1;
        await route.fulfill({ response, body });
      },
    );
    await page.goto(url);
    const shown = await outputs(page);
    expect(shown.download).toMatch(/^DownloadError: /);
    expect(shown.parquet).toMatch(/^DownloadError: /);
  });
}
