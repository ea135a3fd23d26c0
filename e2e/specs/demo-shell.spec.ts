// Every demo page in its shell, in all three engines: the same header with a link to every page
// (its own marked current), and nothing wider than the window at a phone's width.
import { expect, test } from '../fixtures/demo-page.ts';

const NAV = ['Hash files', 'Playground', 'Upload', 'Download', 'Video', 'Benchmarks'];
const PAGES = [
  { path: 'index.html', title: 'Hash files' },
  { path: 'playground.html', title: 'Playground' },
  { path: 'upload.html', title: 'Upload' },
  { path: 'bench.html', title: 'Benchmarks' },
  { path: 'download.html', title: 'Download' },
  { path: 'video.html', title: 'Video' },
];

test.describe('demo: the page shell', () => {
  test.use({ demoViewport: { width: 390, height: 844 } });

  for (const { path, title } of PAGES) {
    test(`${path}: the shared header, its own link current, no sideways scrolling`, async ({ demoPage }) => {
      await demoPage.goto(`/demo/dist/${path}`);
      const shell = await demoPage.evaluate(() => {
        const links = Array.from(document.querySelectorAll<HTMLAnchorElement>('header.site-header nav a'));
        return {
          links: links.map((a) => a.textContent),
          current: links.filter((a) => a.getAttribute('aria-current') === 'page').map((a) => a.textContent),
          stylesheet: getComputedStyle(document.body).backgroundColor !== 'rgba(0, 0, 0, 0)',
          overflow: document.documentElement.scrollWidth - window.innerWidth,
        };
      });
      expect(shell.links).toEqual(NAV);
      expect(shell.current).toEqual([title]);
      expect(shell.stylesheet, 'the shared stylesheet is applied').toBe(true);
      expect(shell.overflow, 'the page is no wider than the window').toBeLessThanOrEqual(0);
    });
  }
});
