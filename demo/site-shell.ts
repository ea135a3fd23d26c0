// The header every demo page shares: the brand and a nav listing every page, written into each
// page's `<!-- site-header -->` when Vite serves or builds it, with the page's own link marked
// current. One list, here; a page that is not built yet is still listed (its link 404s until then).
import { basename } from 'node:path';

import type { Plugin } from 'vite';

export const SITE_PAGES: readonly { file: string; title: string }[] = [
  { file: 'index.html', title: 'Hash files' },
  { file: 'playground.html', title: 'Playground' },
  { file: 'upload.html', title: 'Upload' },
  { file: 'download.html', title: 'Download' },
  { file: 'video.html', title: 'Video' },
  { file: 'bench.html', title: 'Benchmarks' },
];

const PLACEHOLDER = '<!-- site-header -->';

export function siteHeader(currentFile: string): string {
  const links = SITE_PAGES.map(({ file, title }) => {
    const current = file === currentFile ? ' aria-current="page"' : '';
    return `<li><a href="./${file}"${current}>${title}</a></li>`;
  }).join('');
  return (
    '<header class="site-header"><div class="site-header-inner">' +
    '<a class="brand" href="./index.html"><span class="brand-mark" aria-hidden="true">b3</span>blake3-web</a>' +
    `<nav class="site-nav" aria-label="Pages"><ul>${links}</ul></nav>` +
    '</div></header>'
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
