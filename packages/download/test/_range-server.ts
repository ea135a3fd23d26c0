// Mirrors of one content on 127.0.0.1, each with faults to inject: per range request (a flipped
// byte, a truncated or extended body, 200 instead of 206, 416, 500, a wrong Content-Range, a
// stall, a reset connection) and in its outboard (a bad header, truncated, endless, another
// file's). Every mirror counts the content bytes it sent.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const RANGE_FAULTS = [
  'flip',
  'truncate',
  'extend',
  'status-200',
  'status-416',
  'status-500',
  'content-range',
  'stall',
  'reset',
] as const;
export type RangeFault = (typeof RANGE_FAULTS)[number];
export const OUTBOARD_FAULTS = ['bad-header', 'truncated', 'endless', 'other', 'status-404'] as const;
export type OutboardFault = (typeof OUTBOARD_FAULTS)[number];

export type Mirror = {
  /** The fault of the n-th range request to this mirror (0 first), or none. */
  rangeFault?: (n: number, start: number) => RangeFault | undefined;
  outboardFault?: OutboardFault;
  /** Where in a body of `length` bytes a 'flip' flips (default: somewhere that moves with `n`). */
  flipAt?: (n: number, length: number) => number;
  /** Bytes per second of content, or unlimited. */
  bytesPerSecond?: number;
  /** Send no Content-Range, as a cross-origin response that does not expose it reads. */
  hideContentRange?: boolean;
};

export type MirrorStats = {
  rangeRequests: number;
  /** Each range request's first and last byte, as asked. */
  asked: [number, number][];
  contentBytes: number;
  outboardRequests: number;
  faults: RangeFault[];
};

export type Mirrors = {
  /** `http://127.0.0.1:port/m<i>/file.bin` */
  urls: string[];
  stats: MirrorStats[];
  close(): Promise<void>;
};

export async function startMirrors(
  content: Uint8Array,
  outboard: Uint8Array,
  mirrors: readonly Mirror[],
  otherOutboard?: Uint8Array,
): Promise<Mirrors> {
  const stats: MirrorStats[] = mirrors.map(() => ({
    rangeRequests: 0,
    asked: [],
    contentBytes: 0,
    outboardRequests: 0,
    faults: [],
  }));
  const server = createServer((req, res) => {
    const m = /^\/m(\d+)\/file\.bin(\.obao)?$/.exec(req.url ?? '');
    const i = m ? Number(m[1]) : -1;
    if (!m || i >= mirrors.length) return void res.writeHead(404).end();
    if (m[2]) return serveOutboard(res, outboard, mirrors[i].outboardFault, otherOutboard, stats[i]);
    serveRange(req, res, content, mirrors[i], stats[i]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    urls: mirrors.map((_, i) => `http://127.0.0.1:${port}/m${i}/file.bin`),
    stats,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function serveOutboard(
  res: ServerResponse,
  outboard: Uint8Array,
  fault: OutboardFault | undefined,
  other: Uint8Array | undefined,
  stats: MirrorStats,
): void {
  stats.outboardRequests++;
  if (fault === 'status-404') return void res.writeHead(404).end();
  if (fault === 'endless') {
    // The true outboard, then bytes for as long as anyone reads.
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    res.write(outboard);
    const more = () => {
      if (res.destroyed) return;
      if (res.write(new Uint8Array(65536).fill(7))) setImmediate(more);
      else res.once('drain', more);
    };
    more();
    res.on('close', () => {});
    return;
  }
  let body = outboard;
  if (fault === 'bad-header') {
    body = outboard.slice();
    body[7] = 0xff; // claims more than 2^53 bytes
  } else if (fault === 'truncated') body = outboard.subarray(0, outboard.length - 10);
  else if (fault === 'other') body = other!;
  res.writeHead(200, { 'content-length': body.length });
  res.end(body);
}

function serveRange(
  req: IncomingMessage,
  res: ServerResponse,
  content: Uint8Array,
  mirror: Mirror,
  stats: MirrorStats,
): void {
  const r = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
  if (!r) {
    stats.contentBytes += content.length;
    res.writeHead(200, { 'content-length': content.length });
    return void res.end(content);
  }
  const start = Number(r[1]);
  const last = r[2] === '' ? content.length - 1 : Math.min(Number(r[2]), content.length - 1);
  if (start >= content.length) return void res.writeHead(416, { 'content-range': `bytes */${content.length}` }).end();
  const n = stats.rangeRequests++;
  stats.asked.push([start, last]);
  const fault = mirror.rangeFault?.(n, start);
  if (fault) stats.faults.push(fault);
  let body = content.subarray(start, last + 1);
  let contentRange = `bytes ${start}-${last}/${content.length}`;
  switch (fault) {
    case 'status-200':
      stats.contentBytes += content.length;
      res.writeHead(200, { 'content-length': content.length });
      return void res.end(content);
    case 'status-416':
      return void res.writeHead(416, { 'content-range': `bytes */${content.length}` }).end();
    case 'status-500':
      return void res.writeHead(500).end('busy');
    case 'content-range':
      contentRange = `bytes ${start + 1024}-${last + 1024}/${content.length}`;
      break;
    case 'flip':
      body = body.slice();
      body[mirror.flipAt?.(n, body.length) ?? (n * 7919) % body.length] ^= 0x20;
      break;
    case 'truncate':
      body = body.subarray(0, Math.floor(body.length / 2));
      break;
    case 'extend': {
      const longer = new Uint8Array(body.length + 1000);
      longer.set(body);
      body = longer;
      break;
    }
  }
  // The headers a server would send for the honest body; the body may say otherwise.
  res.writeHead(206, mirror.hideContentRange ? {} : { 'content-range': contentRange, 'accept-ranges': 'bytes' });
  if (fault === 'stall') {
    res.write(body.subarray(0, Math.min(body.length, 5000)));
    stats.contentBytes += Math.min(body.length, 5000);
    return; // and nothing more, ever
  }
  if (fault === 'reset') {
    res.write(body.subarray(0, Math.floor(body.length / 3)), () => res.socket?.resetAndDestroy());
    stats.contentBytes += Math.floor(body.length / 3);
    return;
  }
  send(res, body, mirror.bytesPerSecond, stats);
}

/** Sends `body` at most at `bytesPerSecond`, counting what was written. */
function send(res: ServerResponse, body: Uint8Array, bytesPerSecond: number | undefined, stats: MirrorStats): void {
  if (!bytesPerSecond) {
    stats.contentBytes += body.length;
    return void res.end(body);
  }
  const piece = Math.max(1024, Math.floor(bytesPerSecond / 50));
  let at = 0;
  const next = () => {
    if (res.destroyed) return;
    const n = Math.min(piece, body.length - at);
    stats.contentBytes += n;
    res.write(body.subarray(at, at + n));
    at += n;
    if (at >= body.length) return void res.end();
    setTimeout(next, 20);
  };
  next();
}
