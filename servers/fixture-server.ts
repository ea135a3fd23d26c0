import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

import { createBlobStore } from './blob-store.ts';
import { createDownloadMirrors, MIRRORS_PATH } from './download-mirrors.ts';
import { mediaManifest, startMediaCdn, type MediaCdn } from './media-cdn.ts';
import { createTusUploads, UPLOAD_PATH } from './tus-uploads.ts';
import { mimeType } from './mime-types.ts';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Requests under this prefix get the cross-origin isolation headers; the rest of the path is the
 * same file. Pages load their modules and workers by relative URL, so everything they pull in
 * stays under the prefix and is isolated too.
 */
export const ISOLATED_PREFIX = '/coi/';

/** Repo paths browsers may load: the built packages and the test pages, never sources or secrets. */
const SERVED: readonly RegExp[] = [
  /^packages\/[^/]+\/dist\//,
  // comlink's ES module build, for pages that load @blake3-web/worker through an import map.
  /^packages\/worker\/node_modules\/comlink\/dist\/esm\//,
  // The upload page's tus client and IndexedDB wrapper, as their packages build them.
  /^packages\/upload\/node_modules\/(tus-js-client|idb-keyval)\/dist\//,
  /^packages\/testkit\/vectors\//,
  /^servers\/pages\//,
  /^demo\/dist\//,
];

export type FixtureServer = {
  readonly url: string;
  /** Where the demo's tus server keeps its uploads (`<dir>/<upload id>` is an upload's bytes). */
  readonly uploads: string;
  /** The Video page's CDN, on a port of its own (the pages find it through `media.json`). */
  readonly cdn: MediaCdn;
  close(): Promise<void>;
};

/** Serves the repo's built files on 127.0.0.1 (port 0 picks a free one). */
export async function startFixtureServer(port = 0): Promise<FixtureServer> {
  // The demo's content-addressed blobs (`.../blobs/<hex>`), for the verified-download specs.
  const blobs = createBlobStore();
  // The demo's tus server, which its Upload page reaches at ./files/ (here /demo/dist/files/).
  const uploads = createTusUploads();
  // The Download page's two mirrors, which it reaches at ./mirrors/ (here /demo/dist/mirrors/).
  const mirrors = createDownloadMirrors();
  // The Video page's CDN, another origin; the demo's `media.json` says where it is.
  const cdn = await startMediaCdn();
  const manifest = mediaManifest(cdn);
  const server = createServer((req, res) => {
    if (req.url?.startsWith(`/demo/dist${UPLOAD_PATH}`) || req.url?.startsWith(`/demo/dist${MIRRORS_PATH}/`))
      req.url = req.url.slice('/demo/dist'.length);
    const next = () =>
      void handle(req, res).catch((e: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end(`fixture server error: ${String(e)}\n`);
      });
    uploads.middleware(req, res, () =>
      mirrors.middleware(req, res, () => blobs.middleware(req, res, () => manifest(req, res, next))),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    uploads: uploads.directory,
    cdn,
    close: async () => {
      await cdn.close();
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return fail(res, 405, `${req.method} not allowed`);
  let path = decodeURIComponent(new URL(req.url ?? '/', 'http://fixture').pathname);
  const headers: Record<string, string> = {
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  };
  if (path.startsWith(ISOLATED_PREFIX)) {
    path = path.slice(ISOLATED_PREFIX.length - 1);
    headers['Cross-Origin-Opener-Policy'] = 'same-origin';
    headers['Cross-Origin-Embedder-Policy'] = 'require-corp';
    headers['Cross-Origin-Resource-Policy'] = 'same-origin';
  }
  const relative = normalize(path).replace(/^\/+/, '');
  if (relative.split(sep).includes('..') || !SERVED.some((re) => re.test(relative))) {
    return fail(res, 404, `${path} is not served (only built packages and test pages are)`);
  }
  const file = join(repoRoot, relative);
  const info = await stat(file).catch(() => undefined);
  if (!info?.isFile())
    return fail(res, 404, `${path} not found${relative.includes('/dist/') ? ' (run pnpm build)' : ''}`);
  res.writeHead(200, { ...headers, 'Content-Type': mimeType(file), 'Content-Length': String(info.size) });
  if (req.method === 'HEAD') return void res.end();
  createReadStream(file).pipe(res);
}

function fail(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(message + '\n');
}
