// The built docs site (docs/.vitepress/dist) in Chromium: every page reachable from the landing
// page opens without a console error or an uncaught exception, every link inside the site leads
// to a page or file that exists, and every #anchor a link names is an element id on its page.
// BLAKE3_DOCS_SITE and BLAKE3_DOCS_BASE point it at the published site's build instead
// (scripts/build-pages.mjs: the docs at the base, the demo's static build under demo/), served
// under that base as GitHub Pages serves it; the demo's pages are then opened too.
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';

import { expect, test } from '../../servers/engine-test.ts';
import { DOCS_DIST, DOCS_PREFIX as LOCAL_PREFIX, docsMiddleware } from '../../servers/docs-site.ts';

const SITE = resolve(process.env.BLAKE3_DOCS_SITE || DOCS_DIST);
const DOCS_PREFIX = process.env.BLAKE3_DOCS_SITE ? (process.env.BLAKE3_DOCS_BASE ?? '/blake3-web/') : LOCAL_PREFIX;
const DEMO = `${DOCS_PREFIX}demo/index.html`;
const hasDemo = existsSync(`${SITE}/demo/index.html`);

test.describe('docs site', () => {
  // One engine is enough to check links; the site is plain VitePress output.
  test.skip(({ engine }) => engine !== 'chromium', 'the docs site is checked in Chromium only');

  let server: Server | undefined;
  let origin: string;
  test.beforeAll(async () => {
    if (!existsSync(`${SITE}/index.html`)) {
      throw new Error(
        `no built docs site in ${SITE}: run \`node scripts/pnpm.mjs --filter @blake3-web/docs run build\``,
      );
    }
    const serve = docsMiddleware(SITE, DOCS_PREFIX);
    // Chromium asks the origin for /favicon.ico on its own, at a moment of its choosing; the site
    // links no such file, so that probe is not a broken link of the site's.
    const listening = createServer((req, res) =>
      serve(req, res, () => void res.writeHead(req.url === '/favicon.ico' ? 204 : 404).end()),
    );
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    server = listening;
    origin = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
  });
  // In the projects that skip the test, beforeAll never ran and there is no server to close.
  test.afterAll(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  test('every page opens cleanly, every internal link and anchor resolves', async ({ page, request }) => {
    test.setTimeout(600_000);
    const problems: string[] = [];

    // Links and ids from the pages as built (VitePress renders each one to HTML), over HTTP.
    const pages = new Map<string, Set<string>>(); // page path -> ids on it
    const anchors: { from: string; path: string; hash: string }[] = [];
    const files = new Map<string, string>(); // a linked non-page path -> the page linking it
    const queue = hasDemo ? [DOCS_PREFIX, DEMO] : [DOCS_PREFIX];
    const linkedFrom = new Map(queue.map((p) => [p, 'the start'])); // page path -> the first page linking it
    while (queue.length > 0) {
      const path = queue.shift()!;
      const response = await request.get(origin + path);
      if (response.status() !== 200) {
        problems.push(`${linkedFrom.get(path)}: link to ${path}: status ${response.status()}`);
        continue;
      }
      const html = await response.text();
      pages.set(path, new Set(Array.from(html.matchAll(/\sid="([^"]+)"/g), (m) => unescapeHtml(m[1]))));
      for (const [, raw] of html.matchAll(/<a\s[^>]*?href="([^"]*)"/g)) {
        const url = new URL(unescapeHtml(raw), origin + path);
        if (url.origin !== origin) continue;
        if (!url.pathname.startsWith(DOCS_PREFIX)) {
          problems.push(`${path}: link leaves the site's base: ${url.href}`);
          continue;
        }
        if (url.hash.length > 1)
          anchors.push({ from: path, path: url.pathname, hash: decodeURIComponent(url.hash.slice(1)) });
        const isPage = url.pathname.endsWith('/') || url.pathname.endsWith('.html');
        if (!isPage) files.set(url.pathname, path);
        else if (!linkedFrom.has(url.pathname)) {
          linkedFrom.set(url.pathname, path);
          queue.push(url.pathname);
        }
      }
    }
    for (const [file, from] of files) {
      const status = (await request.get(origin + file)).status();
      if (status !== 200) problems.push(`${from}: link to ${file}: status ${status}`);
    }
    for (const { from, path, hash } of anchors) {
      const ids = pages.get(path);
      if (ids !== undefined && !ids.has(hash)) problems.push(`${from}: no #${hash} on ${path}`);
    }

    // Every page in the browser: a full load (hydration included) for the guides and notes, and
    // the site's own client-side navigation for the generated API pages, which are many and alike.
    let current = '';
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`${current}: console error: ${m.text()}`);
    });
    page.on('response', (r) => {
      if (r.status() >= 400) problems.push(`${current}: ${r.url()}: status ${r.status()}`);
    });
    page.on('pageerror', (e) => problems.push(`${current}: uncaught: ${e.message}`));
    const api = `${DOCS_PREFIX}api/`;
    for (const path of pages.keys()) {
      if (path.startsWith(api) && path !== api) continue;
      current = path;
      await page.goto(origin + path);
    }
    current = api;
    await page.goto(origin + api);
    for (const path of pages.keys()) {
      if (!path.startsWith(api) || path === api) continue;
      current = path;
      await page.evaluate((to) => {
        const a = document.createElement('a');
        a.href = to;
        document.querySelector('.VPContent')!.append(a);
        a.click();
      }, path);
      await page.waitForFunction(
        (to) => location.pathname === to && document.querySelector('.vp-doc h1') !== null,
        path,
      );
    }

    // The crawl reached the guides, the notes and the API reference, not just the landing page.
    expect(pages.size).toBeGreaterThan(100);
    for (const must of ['guide/getting-started.html', 'support.html', 'SECURITY.html', 'api/']) {
      expect([...pages.keys()]).toContain(DOCS_PREFIX + must);
    }
    if (hasDemo) {
      for (const must of ['index.html', 'playground.html', 'bench.html']) {
        expect([...pages.keys()]).toContain(`${DOCS_PREFIX}demo/${must}`);
      }
    }
    expect(problems).toEqual([]);
  });
});

function unescapeHtml(s: string): string {
  return s.replace(
    /&(amp|lt|gt|quot|#39);/g,
    (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!,
  );
}
