import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { defineConfig, type DefaultTheme } from 'vitepress';

import { repoLinks } from './repo-links.ts';

const docsDir = fileURLToPath(new URL('../', import.meta.url));
export const REPOSITORY = 'https://github.com/blake3-web/blake3-web';

// The API reference is generated before the build (docs/scripts/generate-api.mjs); its sidebar
// comes with it.
const apiSidebarFile = join(docsDir, 'api/typedoc-sidebar.json');
const apiSidebar: DefaultTheme.SidebarItem[] = existsSync(apiSidebarFile)
  ? JSON.parse(readFileSync(apiSidebarFile, 'utf8'))
  : [];

const guide: DefaultTheme.SidebarItem[] = [
  {
    text: 'Guide',
    items: [
      { text: 'Getting started', link: '/guide/getting-started' },
      { text: 'Hashing', link: '/guide/hashing' },
      {
        text: 'Files and the pool',
        link: '/guide/files-and-the-pool',
        items: [{ text: 'How the pool works', link: '/worker-pool' }],
      },
      { text: 'Streams and Bao', link: '/guide/streams-and-bao', items: [{ text: 'Bao', link: '/bao' }] },
      { text: 'Downloads', link: '/guide/downloads', items: [{ text: 'How downloads work', link: '/download' }] },
      { text: 'Uploads', link: '/guide/uploads', items: [{ text: 'How uploads work', link: '/upload' }] },
      { text: 'Service worker', link: '/guide/service-worker' },
      { text: 'CLI', link: '/guide/cli' },
    ],
  },
  {
    text: 'Reference',
    items: [
      { text: 'Security model', link: '/SECURITY' },
      { text: 'Support', link: '/support' },
      { text: 'Performance', link: '/BENCHMARKS', items: [{ text: 'The wasm-simd kernel', link: '/wasm-kernel' }] },
      { text: 'Architecture', link: '/ARCHITECTURE' },
      { text: 'Versions and releases', link: '/versioning', items: [{ text: 'Maintaining', link: '/maintaining' }] },
      { text: 'API', link: '/api/' },
    ],
  },
];

export default defineConfig({
  title: 'blake3-web',
  description: 'BLAKE3 for the web platform: hashing, files on a worker pool, verified streams, downloads and uploads',
  // Served under /docs/ beside the demo by `npm start`; the published site sets DOCS_BASE.
  base: process.env.DOCS_BASE ?? '/docs/',
  lang: 'en',
  // The guides include the package READMEs from packages/ (<!--@include-->); the generator's
  // scripts are no pages.
  srcExclude: ['scripts/**'],
  cleanUrls: false,
  lastUpdated: false,
  markdown: {
    config: (md) => md.use(repoLinks, { docsDir, repository: REPOSITORY }),
  },
  themeConfig: {
    nav: [
      { text: 'Guide', link: '/guide/getting-started' },
      { text: 'API', link: '/api/' },
      { text: 'Support', link: '/support' },
    ],
    sidebar: { '/api/': [{ text: 'API reference', link: '/api/', items: apiSidebar }], '/': guide },
    socialLinks: [{ icon: 'github', link: REPOSITORY }],
    search: { provider: 'local' },
    outline: { level: [2, 3] },
  },
});
