// Mirrors of the same files for the verified-download specs and benchmarks: each source is an
// HTTP server of its own on 127.0.0.1 (its own origin, as mirrors are), serving byte ranges with
// CORS, counting the content bytes it sends, and misbehaving on demand the ways a real mirror or
// a hostile one does: a flipped byte, a wrong status or Content-Range, a short or long body, a
// stall, a reset connection, a bad outboard.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** What a source does to a content range request (each one that `plan` picks). */
export type RangeFault =
  | 'flip' // one byte of the body changed
  | 'status-200' // the whole file with 200, ignoring the Range header
  | 'status-416'
  | 'status-500'
  | 'wrong-range' // the right bytes' length, from another offset, with a Content-Range that says so
  | 'lie-range' // another offset's bytes under the Content-Range that was asked for
  | 'short' // the body ends early (no Content-Length, so the response itself completes)
  | 'long' // the body runs past the range
  | 'stall' // headers and half the body, then nothing until the connection is closed
  | 'reset'; // half the body, then the connection is destroyed

/** What a source does to an outboard request. */
export type OutboardFault = 'bad-header' | 'truncated' | 'endless' | 'other-file' | 'status-404';

export type ServedFile = {
  content: Uint8Array;
  outboard: Uint8Array;
  /** Served for 'other-file': another file's outboard. */
  otherOutboard?: Uint8Array;
};

export type SourceBehaviour = {
  /** The fault for the n-th content range request of this source, or undefined to answer honestly. */
  fault?: (n: number) => RangeFault | undefined;
  /** Where in a body of `length` bytes a 'flip' flips (default: somewhere that moves with `n`). */
  flipAt?: (n: number, length: number) => number;
  outboard?: OutboardFault;
  /** Held this long before each content response starts (a slow or far mirror). */
  delayMs?: number;
};

export type SourceCounters = {
  /** Content bytes written to responses (ranges and whole-file answers, faulty or not). */
  contentBytes: number;
  outboardBytes: number;
  rangeRequests: number;
  faults: number;
};

export type RangeSources = {
  /** Each source's base URL, ending with `/`: a file `name` is at `<url><name>`, its outboard at `<url><name>.obao`. */
  readonly urls: readonly string[];
  readonly counters: readonly SourceCounters[];
  setBehaviour(source: number, behaviour: SourceBehaviour): void;
  resetCounters(): void;
  close(): Promise<void>;
};

const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'Content-Range, Content-Length, Accept-Ranges',
  'Cross-Origin-Resource-Policy': 'cross-origin',
  'Cache-Control': 'no-store',
};

/** Starts `count` sources serving `files` (by name); all honest until told otherwise. */
export async function startRangeSources(files: ReadonlyMap<string, ServedFile>, count: number): Promise<RangeSources> {
  const counters: SourceCounters[] = [];
  const behaviours: SourceBehaviour[] = [];
  const servers: { server: Server; sockets: Set<Socket> }[] = [];
  const urls: string[] = [];
  for (let i = 0; i < count; i++) {
    counters.push({ contentBytes: 0, outboardBytes: 0, rangeRequests: 0, faults: 0 });
    behaviours.push({});
    const sockets = new Set<Socket>();
    const server = createServer((req, res) => {
      try {
        serve(req, res, files, behaviours[i], counters[i]);
      } catch (e) {
        if (!res.headersSent) res.writeHead(500, CORS);
        res.end(String(e));
      }
    });
    server.on('connection', (s) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push({ server, sockets });
    urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  }
  return {
    urls,
    counters,
    setBehaviour: (source, behaviour) => void (behaviours[source] = behaviour),
    resetCounters() {
      for (const c of counters) Object.assign(c, { contentBytes: 0, outboardBytes: 0, rangeRequests: 0, faults: 0 });
    },
    async close() {
      await Promise.all(
        servers.map(
          ({ server, sockets }) =>
            new Promise<void>((resolve) => {
              for (const s of sockets) s.destroy();
              server.close(() => resolve());
            }),
        ),
      );
    },
  };
}

function serve(
  req: IncomingMessage,
  res: ServerResponse,
  files: ReadonlyMap<string, ServedFile>,
  behaviour: SourceBehaviour,
  counters: SourceCounters,
): void {
  if (req.method === 'OPTIONS') {
    res.writeHead(204, {
      ...CORS,
      'Access-Control-Allow-Methods': 'GET, HEAD',
      'Access-Control-Allow-Headers': 'Range',
      'Access-Control-Max-Age': '600',
    });
    return void res.end();
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') return text(res, 405, `${req.method} not allowed`);
  const name = decodeURIComponent(new URL(req.url ?? '/', 'http://source').pathname.slice(1));
  const isOutboard = name.endsWith('.obao');
  const file = files.get(isOutboard ? name.slice(0, -'.obao'.length) : name);
  if (!file) return text(res, 404, `${name} not found`);
  if (isOutboard) return serveOutboard(req, res, file, behaviour.outboard, counters);

  const size = file.content.length;
  const range = parseRange(req.headers.range, size);
  if (range === 'unsatisfiable') {
    res.writeHead(416, { ...CORS, 'Content-Range': `bytes */${size}` });
    return void res.end();
  }
  const n = range ? counters.rangeRequests++ : -1;
  const fault = range ? behaviour.fault?.(n) : undefined;
  if (fault) counters.faults++;
  const respond = () => {
    if (!range) return send(res, 200, file.content, { 'Accept-Ranges': 'bytes' }, req, counters);
    const { start, end } = range; // end exclusive
    const body = file.content.subarray(start, end);
    const contentRange = (a: number, b: number) => ({ 'Content-Range': `bytes ${a}-${b - 1}/${size}` });
    switch (fault) {
      case undefined:
        return send(res, 206, body, contentRange(start, end), req, counters);
      case 'flip': {
        const bad = body.slice();
        if (bad.length > 0) bad[behaviour.flipAt?.(n, bad.length) ?? (n * 7919) % bad.length] ^= 0x01;
        return send(res, 206, bad, contentRange(start, end), req, counters);
      }
      case 'status-200':
        return send(res, 200, file.content, {}, req, counters);
      case 'status-416':
        res.writeHead(416, { ...CORS, 'Content-Range': `bytes */${size}` });
        return void res.end();
      case 'status-500':
        return text(res, 500, 'injected failure');
      case 'wrong-range': {
        const shift = start >= body.length ? -body.length : Math.min(body.length, size - end);
        if (shift === 0) return text(res, 500, 'injected failure');
        const a = start + shift;
        return send(
          res,
          206,
          file.content.subarray(a, a + body.length),
          contentRange(a, a + body.length),
          req,
          counters,
        );
      }
      case 'lie-range': {
        const a = start >= 1024 ? start - 1024 : Math.min(start + 1024, size - body.length);
        return send(res, 206, file.content.subarray(a, a + body.length), contentRange(start, end), req, counters);
      }
      case 'short':
        return send(res, 206, body.subarray(0, body.length >> 1), contentRange(start, end), req, counters, false);
      case 'long': {
        const longer = new Uint8Array(body.length + 4096);
        longer.set(body);
        longer.fill(0xa5, body.length);
        return send(res, 206, longer, contentRange(start, end), req, counters, false);
      }
      case 'stall':
      case 'reset': {
        res.writeHead(206, { ...CORS, ...contentRange(start, end), 'Content-Length': String(body.length) });
        const half = body.subarray(0, body.length >> 1);
        counters.contentBytes += half.length;
        res.write(half);
        // A stall leaves the response open until the client gives up or the source closes.
        if (fault === 'reset') setTimeout(() => res.socket?.destroy(), 20);
        return;
      }
    }
  };
  if (behaviour.delayMs) setTimeout(respond, behaviour.delayMs);
  else respond();
}

function serveOutboard(
  req: IncomingMessage,
  res: ServerResponse,
  file: ServedFile,
  fault: OutboardFault | undefined,
  counters: SourceCounters,
): void {
  const count = (n: number) => (counters.outboardBytes += n);
  switch (fault) {
    case undefined:
      return void (count(file.outboard.length), send(res, 200, file.outboard, {}, req));
    case 'status-404':
      return text(res, 404, 'no outboard here');
    case 'bad-header': {
      const bad = file.outboard.slice();
      bad[0] ^= 0x01;
      return void (count(bad.length), send(res, 200, bad, {}, req));
    }
    case 'truncated': {
      const cut = file.outboard.subarray(0, Math.max(4, file.outboard.length - 32));
      return void (count(cut.length), send(res, 200, cut, {}, req));
    }
    case 'other-file': {
      const other = file.otherOutboard ?? file.outboard.map((b, i) => (i < 8 ? b : b ^ 0x5a));
      return void (count(other.length), send(res, 200, other, {}, req));
    }
    case 'endless': {
      // The real outboard, then zeros for as long as the client reads.
      res.writeHead(200, { ...CORS, 'Content-Type': 'application/octet-stream' });
      res.write(file.outboard);
      const zeros = new Uint8Array(64 * 1024);
      const more = () => {
        while (!res.destroyed && res.write(zeros)) count(zeros.length);
        if (!res.destroyed) res.once('drain', more);
      };
      res.on('close', () => res.off('drain', more));
      return more();
    }
  }
}

/** A single `bytes=a-b`, `bytes=a-` or `bytes=-n` range, end exclusive; undefined when absent or not one range. */
export function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | 'unsatisfiable' | undefined {
  const m = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (m[1] === '') {
    start = Math.max(0, size - Number(m[2]));
    end = size;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size : Math.min(size, Number(m[2]) + 1);
  }
  if (start >= size || end <= start) return 'unsatisfiable';
  return { start, end };
}

function send(
  res: ServerResponse,
  status: number,
  body: Uint8Array,
  headers: Record<string, string>,
  req: IncomingMessage,
  counters?: SourceCounters,
  withLength = true,
): void {
  res.writeHead(status, {
    ...CORS,
    'Content-Type': 'application/octet-stream',
    ...(withLength ? { 'Content-Length': String(body.length) } : {}),
    ...headers,
  });
  if (req.method === 'HEAD') return void res.end();
  if (counters) counters.contentBytes += body.length;
  res.end(body);
}

function text(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { ...CORS, 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(`${message}\n`);
}
