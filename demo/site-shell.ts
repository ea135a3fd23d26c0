// The header every demo page shares: the brand and a nav listing every page, written into each
// page's `<!-- site-header -->` when Vite serves or builds it, with the page's own link marked
// current. One list, here; a page that is not built yet is still listed (its link 404s until then).
import { basename } from 'node:path';

import type { Plugin } from 'vite';

/** A page of the demo; `server` names what of the demo's own server it cannot work without. */
export type SitePage = { file: string; title: string; server?: string };

export const SITE_PAGES: readonly SitePage[] = [
  { file: 'index.html', title: 'Hash files' },
  { file: 'playground.html', title: 'Playground' },
  { file: 'upload.html', title: 'Upload', server: 'a tus server' },
  { file: 'download.html', title: 'Download', server: 'two mirrors of a large file' },
  { file: 'video.html', title: 'Video', server: 'a CDN for the clip' },
  { file: 'bench.html', title: 'Benchmarks' },
];

/**
 * `BLAKE3_DEMO_STATIC=1` builds the demo for a static host (the published site): the pages that
 * need the demo's server are left out, and the nav says where they run instead.
 */
export const STATIC_BUILD = process.env.BLAKE3_DEMO_STATIC === '1';

/** The pages this build makes. */
export function builtPages(): readonly SitePage[] {
  return STATIC_BUILD ? SITE_PAGES.filter((p) => p.server === undefined) : SITE_PAGES;
}

const REPOSITORY = 'https://github.com/blake3-web/blake3-web';

const PLACEHOLDER = '<!-- site-header -->';

export function siteHeader(currentFile: string): string {
  const links = builtPages()
    .map(({ file, title }) => {
      const current = file === currentFile ? ' aria-current="page"' : '';
      return `<li><a href="./${file}"${current}>${title}</a></li>`;
    })
    .join('');
  const left = SITE_PAGES.filter((p) => !builtPages().includes(p));
  const note =
    left.length === 0
      ? ''
      : `<p class="site-note">${left.map((p) => p.title).join(', ')}: these pages need the demo's own ` +
        `server (${left.map((p) => p.server).join('; ')}); run <code>npm start</code> in a clone of ` +
        `<a href="${REPOSITORY}">the repository</a>.</p>`;
  return (
    '<header class="site-header"><div class="site-header-inner">' +
    '<a class="brand" href="./index.html"><span class="brand-mark" aria-hidden="true">b3</span>blake3-web</a>' +
    `<nav class="site-nav" aria-label="Pages"><ul>${links}</ul></nav>` +
    `</div>${note}</header>`
  );
}

export function siteShell(): Plugin {
  return {
    name: 'blake3-web-site-shell',
    transformIndexHtml: {
      order: 'pre',
      handler(html, ctx) {
        if (!html.includes(PLACEHOLDER)) return html;
        return html.replace(PLACEHOLDER, siteHeader(basename(ctx.filename)));
      },
    },
  };
}
