import { createReadStream, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join, normalize, sep } from 'node:path';

import { repoRoot } from './fixture-server.ts';
import { mimeType } from './mime-types.ts';

/** Where `pnpm --filter @blake3-web/docs run build` writes the site. */
export const DOCS_DIST = join(repoRoot, 'docs/.vitepress/dist');
/** The path the site is built for (VitePress `base`) and served under. */
export const DOCS_PREFIX = '/docs/';

/**
 * Serves the built docs site under /docs/, as connect middleware (the demo's Vite server mounts
 * it) and to the test that opens every page. Anything else goes to `next`. The test also serves
 * the published site's build (scripts/build-pages.mjs) from its directory under its own prefix.
 */
export function docsMiddleware(dist: string = DOCS_DIST, prefix: string = DOCS_PREFIX) {
  return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === prefix.slice(0, -1)) {
      res.writeHead(301, { location: prefix }).end();
      return;
    }
    if (!url.pathname.startsWith(prefix) || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
    let path = decodeURIComponent(url.pathname.slice(prefix.length));
    if (path === '' || path.endsWith('/')) path += 'index.html';
    const file = normalize(join(dist, path));
    if (!file.startsWith(dist + sep)) return void res.writeHead(403).end();
    const size = fileSize(file);
    if (size === undefined) {
      // VitePress's own not-found page, with the status a static host gives.
      const notFound = join(dist, '404.html');
      res.writeHead(404, { 'content-type': mimeType(notFound) });
      if (fileSize(notFound) === undefined) return void res.end('not found');
      return void createReadStream(notFound).pipe(res);
    }
    // The demo serves its pages cross-origin isolated; the site embeds nothing from elsewhere.
    res.writeHead(200, {
      'content-type': mimeType(file),
      'content-length': size,
      'cross-origin-resource-policy': 'same-origin',
    });
    if (req.method === 'HEAD') return void res.end();
    createReadStream(file).pipe(res);
  };
}

function fileSize(file: string): number | undefined {
  try {
    const s = statSync(file);
    return s.isFile() ? s.size : undefined;
  } catch {
    return undefined;
  }
}
