// Content-addressed blobs for the verified-download demo and its tests: GET /blobs/<hex> serves
// the bytes whose BLAKE3 is <hex>; `?tamper=1` flips one byte on the way out, as a corrupting
// proxy or disk would. The demo's Vite server and the e2e fixture server both mount it.
import { blake3, bytesToHex } from '@blake3-web/core';
import type { IncomingMessage, ServerResponse } from 'node:http';

export type BlobInfo = { hex: string; size: number };

function makeBlob(size: number, seed: number): Uint8Array {
  const out = new Uint8Array(size);
  let s = seed >>> 0;
  for (let i = 0; i < size; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = s >>> 24;
  }
  return out;
}

export function createBlobStore(sizes: readonly number[] = [100_000, 3_000_000]) {
  const blobs = new Map<string, Uint8Array>();
  for (const [i, size] of sizes.entries()) {
    const bytes = makeBlob(size, i + 1);
    blobs.set(bytesToHex(blake3(bytes)), bytes);
  }
  const list: BlobInfo[] = [...blobs].map(([hex, bytes]) => ({ hex, size: bytes.length }));

  /** Connect-style middleware; passes on anything that is not a blob request. */
  function middleware(req: IncomingMessage, res: ServerResponse, next: () => void): void {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const match = /\/blobs\/(index\.json|[0-9a-f]{64})$/.exec(url.pathname);
    if (!match || req.method !== 'GET') return next();
    res.setHeader('Cache-Control', 'no-store');
    if (match[1] === 'index.json') {
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify(list));
      return;
    }
    // Lets tests prove a response came from the service worker's cache, not the network.
    if (req.headers['x-blob-unavailable'] !== undefined) {
      res.statusCode = 503;
      res.end('unavailable on request');
      return;
    }
    const bytes = blobs.get(match[1]);
    if (!bytes) {
      res.statusCode = 404;
      res.end('no such blob');
      return;
    }
    const body = url.searchParams.has('tamper') ? bytes.slice() : bytes;
    if (body !== bytes) body[Math.floor(body.length / 2)] ^= 1;
    res.setHeader('Content-Type', 'application/octet-stream');
    res.setHeader('Content-Length', String(body.length));
    res.end(body);
  }

  return { list, middleware };
}
