// Serving the example apps: built ones from a plain static server (as any host would), Vite's
// dev server for dev mode, a Next.js app by its own server.
import { spawn } from 'node:child_process';
import { createReadStream, writeFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, normalize, sep } from 'node:path';
import { stripVTControlCharacters } from 'node:util';

import { mimeType } from '../../servers/mime-types.ts';
import { appEnv } from './prepare.ts';

export type Served = { readonly url: string; close(): Promise<void> };

/** Serves a directory on 127.0.0.1; a directory's path serves its index.html. */
export async function serveStatic(root: string): Promise<Served> {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://app').pathname)).replace(/^\/+/, '');
    const notFound = () => {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(`${path} not found\n`);
    };
    if (path.split(sep).includes('..')) return notFound();
    const file = join(root, path.endsWith('/') || path === '' || path === '.' ? join(path, 'index.html') : path);
    stat(file).then((info) => {
      if (!info.isFile()) return notFound();
      const headers = { 'Content-Type': mimeType(file), 'Accept-Ranges': 'bytes', 'Cache-Control': 'no-store' };
      // One range, as static hosts and CDNs answer it (the download example fetches by ranges).
      const m = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
      if (m) {
        const start = Number(m[1]);
        const end = Math.min(info.size, m[2] === '' ? info.size : Number(m[2]) + 1);
        if (start >= info.size || end <= start) {
          res.writeHead(416, { ...headers, 'Content-Range': `bytes */${info.size}` });
          return void res.end();
        }
        res.writeHead(206, {
          ...headers,
          'Content-Length': String(end - start),
          'Content-Range': `bytes ${start}-${end - 1}/${info.size}`,
        });
        return void createReadStream(file, { start, end: end - 1 }).pipe(res);
      }
      res.writeHead(200, { ...headers, 'Content-Length': String(info.size) });
      if (req.method === 'HEAD') return void res.end();
      createReadStream(file).pipe(res);
    }, notFound);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Runs a server from the app's node_modules/.bin and resolves once its output shows `readyText`;
 * it is stopped by `close()`, and an exit or 60 s without that line reject.
 */
async function startServer(
  dir: string,
  bin: string,
  args: readonly string[],
  url: string,
  readyText: string,
): Promise<Served> {
  const child = spawn(join(dir, 'node_modules', '.bin', bin), args, {
    cwd: dir,
    env: appEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`${bin} in ${dir} did not start in 60 s:\n${output}`));
    }, 60_000);
    const onData = (d: Buffer) => {
      // Vite colours its banner whenever CI is set, even into a pipe: read the text without colours.
      output += stripVTControlCharacters(String(d));
      if (output.includes(readyText)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${bin} in ${dir} exited with ${code}:\n${output}`));
    });
  });
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
}

/**
 * Starts `vite` in an app (as `npm run dev` would), with a fresh dependency pre-bundle, and with
 * `config` as its vite.config when given.
 */
export async function serveViteDev(dir: string, config?: string): Promise<Served> {
  const port = await freePort();
  const args = ['--host', '127.0.0.1', '--port', String(port), '--strictPort', '--force'];
  if (config !== undefined) {
    const file = join(dir, `vite.${port}.config.js`);
    writeFileSync(file, config);
    args.push('--config', file);
  }
  const url = `http://127.0.0.1:${port}/`;
  return startServer(dir, 'vite', args, url, url);
}

/** Starts `next start` in a built Next.js app (as `npm start` would). */
export async function serveNext(dir: string): Promise<Served> {
  const port = await freePort();
  return startServer(
    dir,
    'next',
    ['start', '--hostname', '127.0.0.1', '--port', String(port)],
    `http://127.0.0.1:${port}/`,
    'Ready in',
  );
}
