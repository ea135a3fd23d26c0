// The Video page's "CDN": a server of its own on 127.0.0.1 (another origin than the page's, as a
// CDN is) serving the demo clip and its Bao outboard with byte ranges, CORS and
// Cross-Origin-Resource-Policy (the demo pages are cross-origin isolated), counting every byte it
// sends, and tampering on demand: a flipped byte in one region, or one region served from a
// previous version of the file (a stale cache node). A small control endpoint switches the mode,
// sets a speed (a slow CDN keeps a player's read-ahead short while a test seeks) and reports the
// counters and a log of the requests. The outboard and the root are computed here
// from the file with the project's own encoder, when the server starts.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { fileURLToPath } from 'node:url';

import { blake3, bytesToHex } from '@blake3-web/core';
import { baoEncode } from '@blake3-web/stream';

import type { MediaInfo } from './media-manifest.ts';

export type { MediaInfo };

export type TamperMode = 'none' | 'flip' | 'stale';
export const TAMPER_MODES: readonly TamperMode[] = ['none', 'flip', 'stale'];

/** One request the CDN answered, as its log shows it. */
export type CdnRequest = {
  n: number;
  what: 'content' | 'outboard';
  range: string | null;
  status: number;
  /** Bytes of the body handed to the connection (less than asked when the client went away). */
  bytes: number;
  /** Set when the answer carried tampered bytes, and how. */
  tampered?: Exclude<TamperMode, 'none'>;
};

/** What the control endpoint reports for a session (GET /control?s=<session>). */
export type CdnState = {
  mode: TamperMode;
  /** Content and outboard bytes per second the session is sent at (0: as fast as it goes). */
  rate: number;
  media: MediaInfo;
  counters: { contentBytes: number; outboardBytes: number; requests: number };
  log: CdnRequest[];
};

export type MediaCdn = {
  readonly url: string;
  readonly media: MediaInfo;
  close(): Promise<void>;
};

const MEDIA_DIR = new URL('./media/', import.meta.url);
export const MEDIA_NAME = 'timecode.webm';
const PREVIOUS_NAME = 'timecode-previous.webm';
/** The stale region: 64 KiB (about a second of the clip). */
const STALE_LEN = 64 * 1024;
/** Requests kept in a session's log. */
const LOG_LIMIT = 200;
/** Sessions kept (the oldest is forgotten first). */
const SESSION_LIMIT = 64;
/** Bodies go out in pieces of this size, each counted once the connection took it. */
const PIECE = 16 * 1024;
/** The highest speed a session can be set to, in bytes per second. */
const MAX_RATE = 1e10;

const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'Content-Range, Content-Length, Accept-Ranges',
  'Cross-Origin-Resource-Policy': 'cross-origin',
  'Cache-Control': 'no-store',
};

type Clip = { content: Uint8Array; previous: Uint8Array; outboard: Uint8Array; root: string };

let clip: Clip | undefined;
/** The clip, its previous version, its outboard and root (read and encoded once per process). */
export function mediaClip(): Clip {
  if (!clip) {
    const content = new Uint8Array(readFileSync(fileURLToPath(new URL(MEDIA_NAME, MEDIA_DIR))));
    const previous = new Uint8Array(readFileSync(fileURLToPath(new URL(PREVIOUS_NAME, MEDIA_DIR))));
    clip = {
      content,
      previous,
      outboard: baoEncode(content, { outboard: true }).encoded,
      root: bytesToHex(blake3(content)),
    };
  }
  return clip;
}

/** Starts the CDN on `port` (0 picks a free one), honest to every session until told otherwise. */
export async function startMediaCdn(port = 0): Promise<MediaCdn> {
  const { content, previous, outboard, root } = mediaClip();
  const size = content.length;
  // Regions at about two fifths and two thirds of the clip, on 1 KiB chunk boundaries. Not near
  // the start: Firefox reads a fresh load ahead from byte 0, into any refused region there.
  const staleStart = Math.floor((size * 0.4) / 1024) * 1024;
  const stale = { start: staleStart, end: Math.min(staleStart + STALE_LEN, previous.length, size) };
  const flipAt = Math.floor((size * 2) / 3);
  const path = `/media/${root}/${MEDIA_NAME}`;

  // Each viewer (a tab, a test) names its session in `?s=`: its own mode, counters and log, so
  // viewers in parallel do not tamper with each other's clip.
  const sessions = new Map<string, Session>();
  const sessionOf = (url: URL): Session => {
    const id = url.searchParams.get('s') ?? '';
    let session = sessions.get(id);
    if (!session) {
      sessions.set(id, (session = newSession()));
      // Oldest first: a Map keeps insertion order.
      while (sessions.size > SESSION_LIMIT) sessions.delete(sessions.keys().next().value!);
    }
    return session;
  };

  /** The bytes [start, end) as the CDN serves them in `mode`, and whether they were changed. */
  const bytesOf = (
    mode: TamperMode,
    start: number,
    end: number,
  ): { body: Uint8Array; tampered?: CdnRequest['tampered'] } => {
    const body = content.subarray(start, end);
    if (mode === 'flip' && start <= flipAt && flipAt < end) {
      const bad = body.slice();
      bad[flipAt - start] ^= 0x01;
      return { body: bad, tampered: 'flip' };
    }
    if (mode === 'stale' && start < stale.end && stale.start < end) {
      const old = body.slice();
      const a = Math.max(start, stale.start);
      const b = Math.min(end, stale.end);
      old.set(previous.subarray(a, b), a - start);
      return { body: old, tampered: 'stale' };
    }
    return { body };
  };

  const sockets = new Set<Socket>();
  let media: MediaInfo;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://cdn');
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        ...CORS,
        'Access-Control-Allow-Methods': 'GET, HEAD, POST',
        'Access-Control-Allow-Headers': 'Range',
        'Access-Control-Max-Age': '600',
      });
      return void res.end();
    }
    if (url.pathname === '/control') return control(req, res, url);
    const session = sessionOf(url);
    const { counters } = session;
    if (req.method !== 'GET' && req.method !== 'HEAD') return text(res, 405, `${req.method} not allowed`);
    if (url.pathname === `${path}.obao`) {
      const entry = record(session, { what: 'outboard', range: null, status: 200 });
      return send(res, req, 200, outboard, {}, session, (n) => ((entry.bytes += n), (counters.outboardBytes += n)));
    }
    if (url.pathname !== path) return text(res, 404, `${url.pathname} not found`);
    const range = parseRange(req.headers.range, size);
    if (range === 'unsatisfiable') {
      record(session, { what: 'content', range: req.headers.range ?? null, status: 416 });
      res.writeHead(416, { ...CORS, 'Content-Range': `bytes */${size}` });
      return void res.end();
    }
    const { start, end } = range ?? { start: 0, end: size };
    const { body, tampered } = bytesOf(session.mode, start, end);
    const status = range ? 206 : 200;
    const entry = record(session, {
      what: 'content',
      range: req.headers.range ?? null,
      status,
      ...(tampered ? { tampered } : {}),
    });
    const headers: Record<string, string> = { 'Accept-Ranges': 'bytes', 'Content-Type': 'video/webm' };
    if (range) headers['Content-Range'] = `bytes ${start}-${end - 1}/${size}`;
    send(res, req, status, body, headers, session, (n) => ((entry.bytes += n), (counters.contentBytes += n)));
  });

  /** GET: a session's state; POST `?mode=...` sets its mode, `?rate=` its speed, `?reset` zeroes its counters and log. */
  function control(req: IncomingMessage, res: ServerResponse, url: URL): void {
    const session = sessionOf(url);
    if (req.method === 'POST') {
      const wanted = url.searchParams.get('mode');
      if (wanted !== null) {
        if (!(TAMPER_MODES as readonly string[]).includes(wanted))
          return text(res, 400, `mode must be one of ${TAMPER_MODES.join(', ')}, got ${wanted}`);
        session.mode = wanted as TamperMode;
      }
      const rate = url.searchParams.get('rate');
      if (rate !== null) {
        const n = Number(rate);
        if (rate === '' || !Number.isFinite(n) || n < 0 || n > MAX_RATE)
          return text(res, 400, `rate must be bytes per second from 0 (no limit) to ${MAX_RATE}, got ${rate}`);
        session.rate = n;
      }
      if (url.searchParams.has('reset')) reset(session);
    } else if (req.method !== 'GET') return text(res, 405, `${req.method} not allowed`);
    res.writeHead(200, { ...CORS, 'Content-Type': 'application/json' });
    res.end(JSON.stringify(stateOf(session, media)));
  }

  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  media = { url: `${origin}${path}`, root, size, flipAt, stale, controlUrl: `${origin}/control` };
  return {
    url: `${origin}/`,
    media,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

type Session = {
  mode: TamperMode;
  rate: number;
  /** When the session's next piece may go, at its rate (performance.now() time). */
  nextFree: number;
  counters: CdnState['counters'];
  log: CdnRequest[];
};

const newSession = (): Session => ({
  mode: 'none',
  rate: 0,
  nextFree: 0,
  counters: { contentBytes: 0, outboardBytes: 0, requests: 0 },
  log: [],
});

function reset(session: Session): void {
  Object.assign(session.counters, { contentBytes: 0, outboardBytes: 0, requests: 0 });
  session.log = [];
}

function record(session: Session, entry: Omit<CdnRequest, 'n' | 'bytes'>): CdnRequest {
  const full = { n: session.counters.requests++, bytes: 0, ...entry };
  session.log.push(full);
  if (session.log.length > LOG_LIMIT) session.log = session.log.slice(-LOG_LIMIT);
  return full;
}

function stateOf(session: Session, media: MediaInfo): CdnState {
  return {
    mode: session.mode,
    rate: session.rate,
    media,
    counters: { ...session.counters },
    log: session.log.map((e) => ({ ...e })),
  };
}

/** One `bytes=a-b`, `bytes=a-` or `bytes=-n` range, end exclusive; undefined when absent or of another form. */
function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | 'unsatisfiable' | undefined {
  const m = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  const start = m[1] === '' ? Math.max(0, size - Number(m[2])) : Number(m[1]);
  const end = m[1] === '' || m[2] === '' ? size : Math.min(size, Number(m[2]) + 1);
  if (m[1] !== '' && m[2] !== '' && Number(m[2]) < start) return undefined;
  return start >= size || end <= start ? 'unsatisfiable' : { start, end };
}

/**
 * Writes `body` in pieces, each after the connection took the one before (and, at a session's
 * rate, when its turn comes), and counts what it took: a client that stops reading (a media
 * element that has enough, or seeks away) stops the count near what it received, not at the
 * size of the range it asked for.
 */
function send(
  res: ServerResponse,
  req: IncomingMessage,
  status: number,
  body: Uint8Array,
  headers: Record<string, string>,
  session: Session,
  count: (n: number) => void,
): void {
  res.writeHead(status, {
    ...CORS,
    'Content-Type': 'application/octet-stream',
    ...headers,
    'Content-Length': String(body.length),
  });
  if (req.method === 'HEAD') return void res.end();
  let at = 0;
  const more = (): void => {
    while (at < body.length && !res.destroyed) {
      const wait = turn(session, Math.min(PIECE, body.length - at));
      if (wait > 0) return void setTimeout(more, wait);
      const piece = body.subarray(at, at + PIECE);
      at += piece.length;
      count(piece.length);
      if (at === body.length) return void res.end(piece);
      if (!res.write(piece)) return void res.once('drain', more);
    }
  };
  res.on('close', () => res.off('drain', more));
  more();
}

/** How long until `n` more bytes may go at the session's rate; 0 (and their time booked) when now. */
function turn(session: Session, n: number): number {
  if (session.rate === 0) return 0;
  const now = performance.now();
  if (session.nextFree > now) return session.nextFree - now;
  session.nextFree = now + (n / session.rate) * 1000;
  return 0;
}

function text(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { ...CORS, 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(`${message}\n`);
}

/**
 * The page's side: `GET .../media.json` on the page's own origin says where the clip is and what
 * its root is. The root must come from the site, never from the CDN: it is what the CDN's bytes
 * are checked against. Connect-style middleware; passes on anything else.
 */
export function mediaManifest(cdn: MediaCdn): (req: IncomingMessage, res: ServerResponse, next: () => void) => void {
  return (req, res, next) => {
    const { pathname } = new URL(req.url ?? '/', 'http://site');
    if (!pathname.endsWith('/media.json') || req.method !== 'GET') return next();
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
    res.end(JSON.stringify(cdn.media));
  };
}
