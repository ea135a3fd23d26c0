// Content-addressed blobs for the verified-download demo and its tests: GET /blobs/<hex> serves
// the bytes whose BLAKE3 is <hex> (one `Range: bytes=...` is honoured with a 206),
// GET /blobs/<hex>.bao their Bao combined encoding, GET /blobs/<hex>.obao their Bao outboard;
// `?tamper=1` flips one content byte on the way out (of the content and of `.bao`), as a
// corrupting proxy or disk would. The demo's Vite server and the fixture server (fixture-server.ts) both mount it.
import { blake3, bytesToHex } from '@blake3-web/core';
import { baoEncode } from '@blake3-web/stream';
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

/** The content byte every tampered response flips: the middle one. */
export function tamperedOffset(size: number): number {
  return Math.floor(size / 2);
}

type Encoded = { readonly bao: Uint8Array; readonly baoTampered: Uint8Array; readonly outboard: Uint8Array };

/**
 * The combined encoding, and the same with the content byte at tamperedOffset flipped (the
 * parents unchanged, as a corrupted copy of a good file would be). That byte's place in the
 * pre-order layout is found by encoding the changed content too: its parents all differ, and
 * they come before the chunk, so the last differing byte is the content byte itself.
 */
function encodeBao(bytes: Uint8Array): Encoded {
  const bao = baoEncode(bytes).encoded;
  const changed = bytes.slice();
  changed[tamperedOffset(bytes.length)] ^= 1;
  const other = baoEncode(changed).encoded;
  let at = bao.length - 1;
  while (at >= 0 && bao[at] === other[at]) at--;
  const baoTampered = bao.slice();
  baoTampered[at] ^= 1;
  return { bao, baoTampered, outboard: baoEncode(bytes, { outboard: true }).encoded };
}

/** One `bytes=first-last`, `bytes=first-` or `bytes=-suffix` range within `size` bytes; undefined for none or any other form. */
function byteRange(
  header: string | undefined,
  size: number,
): { first: number; last: number } | 'unsatisfiable' | undefined {
  const m = header === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  const first = m[1] === '' ? Math.max(0, size - Number(m[2])) : Number(m[1]);
  const last = m[1] === '' || m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[1] !== '' && m[2] !== '' && Number(m[2]) < first) return undefined;
  return first >= size || (m[1] === '' && m[2] === '0') ? 'unsatisfiable' : { first, last };
}

export function createBlobStore(sizes: readonly number[] = [100_000, 3_000_000]) {
  const blobs = new Map<string, Uint8Array>();
  for (const [i, size] of sizes.entries()) {
    const bytes = makeBlob(size, i + 1);
    blobs.set(bytesToHex(blake3(bytes)), bytes);
  }
  // Encoded on first request: most servers that mount the store never serve an encoding.
  const encodings = new Map<string, Encoded>();
  const list: BlobInfo[] = [...blobs].map(([hex, bytes]) => ({ hex, size: bytes.length }));

  /** Connect-style middleware; passes on anything that is not a blob request. */
  function middleware(req: IncomingMessage, res: ServerResponse, next: () => void): void {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const match = /\/blobs\/(index\.json|[0-9a-f]{64})(\.o?bao)?$/.exec(url.pathname);
    if (!match || req.method !== 'GET') return next();
    res.setHeader('Cache-Control', 'no-store');
    if (match[1] === 'index.json' && !match[2]) {
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
    let body: Uint8Array;
    if (match[2]) {
      let encoded = encodings.get(match[1]);
      if (!encoded) encodings.set(match[1], (encoded = encodeBao(bytes)));
      body =
        match[2] === '.obao' ? encoded.outboard : url.searchParams.has('tamper') ? encoded.baoTampered : encoded.bao;
    } else {
      body = url.searchParams.has('tamper') ? bytes.slice() : bytes;
      if (body !== bytes) body[tamperedOffset(body.length)] ^= 1;
      const range = byteRange(req.headers.range, body.length);
      if (range !== undefined) res.setHeader('Accept-Ranges', 'bytes');
      if (range === 'unsatisfiable') {
        res.statusCode = 416;
        res.setHeader('Content-Range', `bytes */${body.length}`);
        res.end();
        return;
      }
      if (range) {
        res.statusCode = 206;
        res.setHeader('Content-Range', `bytes ${range.first}-${range.last}/${body.length}`);
        body = body.subarray(range.first, range.last + 1);
      }
    }
    res.setHeader('Content-Type', 'application/octet-stream');
    res.setHeader('Content-Length', String(body.length));
    res.end(body);
  }

  return { list, middleware };
}
