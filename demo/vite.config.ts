import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { defineConfig, type Plugin, type PreviewServer, type ViteDevServer } from 'vite';
import { createBlobStore } from '../servers/blob-store.ts';
import { docsSite } from './docs-site-plugin.ts';
import { createDownloadMirrors } from '../servers/download-mirrors.ts';
import { mediaManifest, startMediaCdn } from '../servers/media-cdn.ts';
import { createTusUploads, proxyTus } from '../servers/tus-uploads.ts';
import { builtPages, siteShell, STATIC_BUILD } from './site-shell.ts';

// Cross-origin isolation gives the page fine-grained timers (performance.now() steps of
// microseconds instead of 0.1-1 ms), which the timing shown and the benchmarks rely on.
const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

function blobs(): Plugin {
  const store = createBlobStore();
  return {
    name: 'blake3-web-blobs',
    configureServer: (server) => void server.middlewares.use(store.middleware),
    configurePreviewServer: (server) => void server.middlewares.use(store.middleware),
  };
}

/**
 * The Upload page's tus server, beside the page on the same origin; with BLAKE3_DEMO_TUS (set by
 * `npm run demo:fleet`), /files/ is sent to that server, a fleet behind its proxy, instead.
 */
function uploads(): Plugin {
  const upstream = process.env.BLAKE3_DEMO_TUS;
  const tus = upstream ? proxyTus(upstream) : createTusUploads();
  return {
    name: 'blake3-web-tus-uploads',
    configureServer: (server) => void server.middlewares.use(tus.middleware),
    configurePreviewServer: (server) => void server.middlewares.use(tus.middleware),
  };
}

/** The Download page's two mirrors of a large asset, made on first use and kept on disk. */
function mirrors(): Plugin {
  const { middleware } = createDownloadMirrors();
  return {
    name: 'blake3-web-download-mirrors',
    configureServer: (server) => void server.middlewares.use(middleware),
    configurePreviewServer: (server) => void server.middlewares.use(middleware),
  };
}

/**
 * The Video page's CDN, a server of its own (port BLAKE3_DEMO_CDN_PORT, else a free one), started
 * and stopped with the demo's server; the page learns where it is, and the clip's root, from
 * this origin's media.json.
 */
function mediaCdn(): Plugin {
  const port = Number(process.env.BLAKE3_DEMO_CDN_PORT ?? 0);
  const start = async (server: ViteDevServer | PreviewServer) => {
    const cdn = await startMediaCdn(port);
    server.middlewares.use(mediaManifest(cdn));
    server.httpServer?.once('close', () => void cdn.close());
    console.log(`  Video page's CDN: ${cdn.url}`);
  };
  return {
    name: 'blake3-web-media-cdn',
    configureServer: start,
    configurePreviewServer: start,
  };
}

// The benchmark page measures the peers bench/ installs; their versions go into its results.
const PEERS = ['@fuzdev/blake3_wasm', 'blake3-jit', 'hash-wasm', '@noble/hashes'];
function peerVersion(name: string): string {
  const file = fileURLToPath(new URL(`../bench/node_modules/${name}/package.json`, import.meta.url));
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

/**
 * The port both servers listen on: `PORT`, else 5173; a `--port` flag (`npm start -- --port N`)
 * wins over both. The build does not depend on it. A busy port stops the server with an error
 * instead of moving it to the next free one, so the address asked for is the address served.
 */
function port(): number {
  const value = process.env.PORT;
  if (value === undefined || value === '') return 5173;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 65_535)
    throw new RangeError(`PORT must be a port number from 1 to 65535, got ${JSON.stringify(value)}`);
  return n;
}

export default defineConfig({
  // Relative asset URLs: the built site works from any static host and any sub-path.
  base: './',
  plugins: [siteShell(), blobs(), uploads(), mirrors(), mediaCdn(), docsSite()],
  define: {
    __BENCH_PEERS__: JSON.stringify(PEERS.map((name) => ({ name, version: peerVersion(name) }))),
    __DEMO_STATIC__: JSON.stringify(STATIC_BUILD),
  },
  server: { host: '127.0.0.1', port: port(), strictPort: true, headers: isolation },
  preview: { host: '127.0.0.1', port: port(), strictPort: true, headers: isolation },
  // The pool's worker imports modules of its own: only module workers can hold them as chunks.
  worker: { format: 'es' },
  build: {
    target: 'es2022',
    rolldownOptions: {
      // Every page of the nav (site-shell.ts): `main` for index.html, else the file's name.
      input: Object.fromEntries(
        builtPages().map(({ file }) => [
          file === 'index.html' ? 'main' : file.replace(/\.html$/, ''),
          fileURLToPath(new URL(`./${file}`, import.meta.url)),
        ]),
      ),
    },
  },
});
