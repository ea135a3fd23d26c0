// The first snippets of the core's and the stream package's READMEs, as a user meets them: in a
// fresh Vite app (examples/snippets-vite) installed from the packed tarballs, run by Vite's dev
// server and from its build. The app's files hold each block as the README has it; what the
// blocks compute must be what the official implementation gives (packages/testkit's oracle).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { oracle } from '@blake3-web/testkit';
import { expect, test, type Page } from '@playwright/test';

import { repoRoot } from '../../servers/fixture-server.ts';
import { SNIPPET_APPS, URLS_ENV } from './apps.ts';

const urls = JSON.parse(process.env[URLS_ENV] ?? '{}') as Record<string, string>;
const app = join(repoRoot, 'examples/snippets-vite');
const data = readFileSync(join(app, 'public/data.txt'));
const key = Uint8Array.from({ length: 32 }, (_, i) => (i * 37 + 11) & 0xff);
const [abc, hash, tag] = oracle([
  { data: new TextEncoder().encode('abc'), length: 32 },
  { data, length: 32 },
  { data, key, length: 32 },
]);
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

function firstBlock(pkg: string): string {
  const readme = readFileSync(join(repoRoot, 'packages', pkg, 'README.md'), 'utf8');
  return /```ts\n([\s\S]*?)```/.exec(readme)![1];
}

async function shown(page: Page, id: 'core' | 'stream'): Promise<string> {
  const output = page.locator(`output#${id}`);
  await expect(output).not.toHaveText('', { timeout: 60_000 });
  return (await output.textContent()) ?? '';
}

test("the app's files hold the READMEs' first blocks as they stand", () => {
  for (const pkg of ['core', 'stream']) {
    expect(readFileSync(join(app, `${pkg}-snippet.ts`), 'utf8'), `packages/${pkg}/README.md`).toContain(
      firstBlock(pkg),
    );
  }
});

for (const { name } of SNIPPET_APPS) {
  test(`${name}: the blocks give the official implementation's bytes`, async ({ page }) => {
    const url = urls[name];
    expect(url, `global setup served ${name}`).toBeDefined();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${url}?hash=${hash}&tag=${tag}&key=${hex(key)}`);
    expect(JSON.parse(await shown(page, 'core'))).toBe(abc);
    expect(JSON.parse(await shown(page, 'stream'))).toEqual({
      digest: hash,
      text: data.toString('utf8'),
      authenticated: data.toString('utf8'),
      hash,
      sunk: data.length,
    });
    expect(errors).toEqual([]);
  });

  test(`${name}: a hash the bytes do not have is an IntegrityError`, async ({ page }) => {
    const wrong = hash.replace(/^./, (c) => (c === '0' ? '1' : '0'));
    await page.goto(`${urls[name]}?hash=${wrong}&tag=${tag}&key=${hex(key)}`);
    expect(await shown(page, 'stream')).toMatch(/^IntegrityError: /);
  });
}
