// The Download page's two mirrors of the demo asset (demo-asset.ts), under path prefixes of the
// demo's own server: `/mirrors/<session>/<a|b>/<asset>.bin` and its `.obao`. Each page load is a
// session of its own, so its switches and counts are its own (and the e2e specs', run side by
// side in three engines, never mix). Each mirror can be made hostile at any time, and counts
// what it was asked for and what it sent, which the page's map is checked against.
//
//   GET  /mirrors/asset/<asset>            {name, size, root, chunkGroupLog}, made on first use
//   POST /mirrors/<session>/<a|b>/behaviour  {mode, rate}: rate in bytes per second, 0 for none
//   GET  /mirrors/<session>/counts         {a: MirrorCounts, b: MirrorCounts}
import { open } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';

import { ASSET_GROUP_BYTES, demoAsset, isAssetName, type Asset } from './demo-asset.ts';
import { parseRange } from './range-sources.ts';

export const MIRRORS_PATH = '/mirrors';
export const MIRROR_NAMES = ['a', 'b'] as const;
export type MirrorName = (typeof MIRROR_NAMES)[number];

/** What a mirror does to the requests for the asset's bytes. */
export const MIRROR_MODES = ['honest', 'flip', 'stall', 'wrong-length', 'wrong-status', 'gone'] as const;
export type MirrorMode = (typeof MIRROR_MODES)[number];
// honest        206 with the bytes asked for
// flip          one byte changed in every group whose index is FLIP_EVERY * k + FLIP_AT
// stall         headers and half the body, then nothing until the client gives up
// wrong-length  the bytes asked for and 4 KiB more
// wrong-status  503 for every request, the outboard's too
// gone          every connection closed at once, without an answer (the outboard's too)

/** Which groups a flipping mirror changes: one in FLIP_EVERY, so every 2 MiB range holds some. */
export const FLIP_EVERY = 37;
export const FLIP_AT = 5;
/** The byte changed within such a group (every group is longer, but the final one may not be). */
const FLIP_OFFSET = 777;

export type MirrorCounts = {
  /** Content requests with a Range header. */
  requests: number;
  /** Groups those ranges covered, whole or in part. */
  groupsAsked: number;
  /** Content bytes written to responses (faulty or not). */
  contentBytes: number;
  outboardBytes: number;
  /** Groups written with a changed byte. */
  groupsFlipped: number;
  /** Requests answered with a fault (any mode but honest). */
  faults: number;
};

type Mirror = { mode: MirrorMode; rate: number; nextFree: number; counts: MirrorCounts };
type Session = Record<MirrorName, Mirror>;

const MAX_SESSIONS = 64;
const PIECE = 64 * 1024;
const EXTRA_BYTES = 4096;
const MAX_RATE = 1e10;

export function createDownloadMirrors(assetDirectory?: string) {
  const sessions = new Map<string, Session>();

  /** The session `id`, the most recently used kept last; the oldest goes past MAX_SESSIONS. */
  function session(id: string): Session {
    let s = sessions.get(id);
    if (s) sessions.delete(id);
    else {
      const mirror = (): Mirror => ({
        mode: 'honest',
        rate: 0,
        nextFree: 0,
        counts: { requests: 0, groupsAsked: 0, contentBytes: 0, outboardBytes: 0, groupsFlipped: 0, faults: 0 },
      });
      s = { a: mirror(), b: mirror() };
      if (sessions.size >= MAX_SESSIONS) sessions.delete(sessions.keys().next().value!);
    }
    sessions.set(id, s);
    return s;
  }

  async function handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const parts = path.split('/');
    if (parts[0] === 'asset' && parts.length === 2) {
      if (!isAssetName(parts[1])) return text(res, 404, `no asset ${parts[1]}`);
      const { name, size, root, chunkGroupLog } = await demoAsset(parts[1], assetDirectory);
      return json(res, { name, size, root, chunkGroupLog });
    }
    const [id, mirror, file] = parts;
    if (!/^[0-9a-f]{8,64}$/.test(id ?? '')) return text(res, 404, 'no such session');
    if (mirror === 'counts' && parts.length === 2) {
      const s = session(id);
      return json(res, { a: s.a.counts, b: s.b.counts });
    }
    if (!MIRROR_NAMES.includes(mirror as MirrorName) || parts.length !== 3) return text(res, 404, 'no such mirror');
    const m = session(id)[mirror as MirrorName];
    if (file === 'behaviour') {
      if (req.method !== 'POST') return text(res, 405, 'POST the behaviour');
      return setBehaviour(req, res, m);
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return text(res, 405, `${req.method} not allowed`);
    const isOutboard = file.endsWith('.bin.obao');
    const name = file.slice(0, -(isOutboard ? '.bin.obao' : '.bin').length);
    if (!(file.endsWith('.bin') || isOutboard) || !isAssetName(name)) return text(res, 404, `no file ${file}`);
    const asset = await demoAsset(name, assetDirectory);
    if (isOutboard) {
      if (m.mode === 'gone') return void res.socket?.destroy();
      if (m.mode === 'wrong-status') return text(res, 503, 'injected failure');
      return sendFile(req, res, m, asset.outboardPath, 0, undefined, 200, {}, 'outboard');
    }
    return serveContent(req, res, m, asset);
  }

  return {
    /** Connect-style middleware; passes on anything outside MIRRORS_PATH. */
    middleware(req: IncomingMessage, res: ServerResponse, next: () => void): void {
      const path = new URL(req.url ?? '/', 'http://mirror').pathname;
      if (!path.startsWith(`${MIRRORS_PATH}/`)) return next();
      handle(req, res, decodeURIComponent(path.slice(MIRRORS_PATH.length + 1))).catch((e: unknown) => {
        if (!res.headersSent) text(res, 500, `mirror error: ${String(e)}`);
        else res.destroy();
      });
    },
    /** A session's counts, as the page's counts endpoint gives them. */
    counts(id: string): Record<MirrorName, MirrorCounts> {
      const s = session(id);
      return { a: { ...s.a.counts }, b: { ...s.b.counts } };
    },
  };
}

async function setBehaviour(req: IncomingMessage, res: ServerResponse, m: Mirror): Promise<void> {
  let body = '';
  for await (const piece of req) {
    body += String(piece);
    if (body.length > 1024) return text(res, 413, 'a behaviour is a small JSON object');
  }
  let wanted: { mode?: unknown; rate?: unknown };
  try {
    wanted = JSON.parse(body) as typeof wanted;
  } catch {
    return text(res, 400, `not JSON: ${body.slice(0, 80)}`);
  }
  const { mode, rate } = wanted;
  if (!MIRROR_MODES.includes(mode as MirrorMode))
    return text(res, 400, `mode must be one of ${MIRROR_MODES.join(', ')}`);
  if (typeof rate !== 'number' || !Number.isFinite(rate) || rate < 0 || rate > MAX_RATE)
    return text(res, 400, `rate must be bytes per second from 0 (no limit) to ${MAX_RATE}`);
  m.mode = mode as MirrorMode;
  m.rate = rate;
  res.writeHead(204, { 'Cache-Control': 'no-store' });
  res.end();
}

function serveContent(req: IncomingMessage, res: ServerResponse, m: Mirror, asset: Asset): Promise<void> {
  const range = parseRange(req.headers.range, asset.size);
  if (range === 'unsatisfiable') {
    res.writeHead(416, { 'Content-Range': `bytes */${asset.size}`, 'Cache-Control': 'no-store' });
    return Promise.resolve(void res.end());
  }
  if (!range) return sendFile(req, res, m, asset.contentPath, 0, asset.size, 200, { 'Accept-Ranges': 'bytes' });
  const { start, end } = range;
  m.counts.requests++;
  m.counts.groupsAsked += Math.ceil(end / ASSET_GROUP_BYTES) - Math.floor(start / ASSET_GROUP_BYTES);
  if (m.mode !== 'honest') m.counts.faults++;
  // Counted first: what a mirror was asked for, whether or not it answers.
  if (m.mode === 'gone') return Promise.resolve(void res.socket?.destroy());
  if (m.mode === 'wrong-status') return Promise.resolve(text(res, 503, 'injected failure'));
  const headers = { 'Content-Range': `bytes ${start}-${end - 1}/${asset.size}` };
  return sendFile(req, res, m, asset.contentPath, start, end, 206, headers);
}

/**
 * Bytes `start` to `end` of `path` (to its end when undefined), in pieces paced at the mirror's
 * rate (shared by its requests), changed as its mode says; stops when the client goes away.
 */
async function sendFile(
  req: IncomingMessage,
  res: ServerResponse,
  m: Mirror,
  path: string,
  start: number,
  end: number | undefined,
  status: number,
  headers: Record<string, string>,
  kind: 'content' | 'outboard' = 'content',
): Promise<void> {
  const file = await open(path, 'r');
  try {
    const stop = end ?? (await file.stat()).size;
    const content = kind === 'content';
    const mode = content ? m.mode : 'honest';
    const sendTo = mode === 'stall' ? start + ((stop - start) >> 1) : stop;
    const extra = mode === 'wrong-length' ? EXTRA_BYTES : 0;
    res.writeHead(status, {
      'Content-Type': 'application/octet-stream',
      'Cache-Control': 'no-store',
      ...(mode === 'honest' || mode === 'flip' ? { 'Content-Length': String(stop - start) } : {}),
      ...headers,
    });
    if (req.method === 'HEAD') return void res.end();
    const piece = new Uint8Array(PIECE);
    for (let at = start; at < sendTo + extra;) {
      if (res.destroyed) return;
      const n = Math.min(PIECE, sendTo + extra - at);
      const bytes = piece.subarray(0, n);
      let flipped = 0;
      if (at >= sendTo) bytes.fill(0xa5);
      else {
        const inFile = Math.min(n, sendTo - at);
        await file.read(bytes, 0, inFile, at);
        if (inFile < n) bytes.fill(0xa5, inFile);
        if (mode === 'flip') flipped = flipGroups(bytes.subarray(0, inFile), at);
      }
      await pace(m, n);
      if (res.destroyed) return;
      if (content) m.counts.contentBytes += n;
      else m.counts.outboardBytes += n;
      m.counts.groupsFlipped += flipped;
      if (!res.write(bytes.slice())) await drained(res);
      at += n;
    }
    // A stall leaves the response open; the client's stall timer ends it. Should the client keep
    // the connection anyway (WebKitGTK holds it after aborting the request), the answer ends when
    // the mirror stops stalling, so it does not keep one of the browser's few connections.
    if (mode !== 'stall') res.end();
    else while (!res.destroyed && m.mode === 'stall') await new Promise((r) => setTimeout(r, 250));
    if (mode === 'stall') res.destroy();
  } finally {
    await file.close();
  }
}

/** Changes one byte of each flipped group whose byte falls in `bytes` (at content offset `at`); returns how many. */
function flipGroups(bytes: Uint8Array, at: number): number {
  let flipped = 0;
  const first = Math.floor(at / ASSET_GROUP_BYTES);
  const last = Math.floor((at + bytes.length - 1) / ASSET_GROUP_BYTES);
  for (let g = first; g <= last; g++) {
    if (g % FLIP_EVERY !== FLIP_AT) continue;
    const i = g * ASSET_GROUP_BYTES + FLIP_OFFSET - at;
    if (i >= 0 && i < bytes.length) {
      bytes[i] ^= 0x01;
      flipped++;
    }
  }
  return flipped;
}

/** Resolves when `res` can take more, or is gone. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** Waits for the mirror's turn to send `n` bytes at its rate. */
async function pace(m: Mirror, n: number): Promise<void> {
  if (m.rate === 0) return;
  const now = performance.now();
  const at = Math.max(now, m.nextFree);
  m.nextFree = at + (n / m.rate) * 1000;
  if (at > now) await new Promise((r) => setTimeout(r, at - now));
}

function json(res: ServerResponse, value: unknown): void {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
  res.end(JSON.stringify(value));
}

function text(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(`${message}\n`);
}
