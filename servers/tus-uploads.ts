// The demo's tus server at /files/, mounted in Vite's dev and preview servers (127.0.0.1): the
// verifying store from @blake3-web/upload on a directory under the system's temp dir, with
// `verifyStored` on, so the bytes on disk are checked again when an upload finishes. Two faults
// for the page's refusals, chosen by the upload's metadata: `tamper: 1` flips one byte as it
// arrives (the client's root is not that of the bytes received); `tamper: stored` flips a byte
// of the file on disk after the first request that leaves the upload unfinished (the bytes
// received match the root, the bytes stored do not: only `verifyStored` sees it; the file must
// be larger than one request).
import { Blake3FileStore, ROOT_HEADER, VERIFIED_HEADER, verifyBlake3 } from '@blake3-web/upload/tus-server';
import { Server } from '@tus/server';
import { mkdirSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { request, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';

export const UPLOAD_PATH = '/files';

/** `readable`, the bytes of an upload from `offset`, with the byte at `target` flipped on its way. */
export function flipInTransit(readable: Readable, offset: number, target: number): Readable {
  let at = offset;
  const flip = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      const bytes = Buffer.from(chunk);
      if (target >= at && target < at + bytes.length) bytes[target - at] ^= 1;
      at += bytes.length;
      callback(null, bytes);
    },
  });
  readable.on('error', (e) => flip.destroy(e));
  return readable.pipe(flip);
}

/** Flips the byte at `at` of the file at `path`, as a disk that changed it would. */
export async function flipOnDisk(path: string, at: number): Promise<void> {
  const file = await open(path, 'r+');
  try {
    const byte = new Uint8Array(1);
    await file.read(byte, 0, 1, at);
    byte[0] ^= 1;
    await file.write(byte, 0, 1, at);
  } finally {
    await file.close();
  }
}

class TamperingStore extends Blake3FileStore {
  readonly #directory: string;
  /** Uploads whose file on disk was changed already (once each). */
  readonly #changedOnDisk = new Set<string>();

  constructor(directory: string) {
    super({ directory, verifyStored: true });
    this.#directory = directory;
  }

  override async write(readable: Readable, id: string, offset: number): Promise<number> {
    const { metadata, size } = await this.getUpload(id);
    if (size === undefined || (metadata?.tamper !== '1' && metadata?.tamper !== 'stored'))
      return super.write(readable, id, offset);
    if (metadata.tamper === 'stored') {
      const end = await super.write(readable, id, offset);
      if (end < size && end > 0 && !this.#changedOnDisk.has(id)) {
        this.#changedOnDisk.add(id);
        await flipOnDisk(join(this.#directory, id), Math.floor(end / 2));
      }
      return end;
    }
    return super.write(flipInTransit(readable, offset, Math.floor(size / 2)), id, offset);
  }

  override async remove(id: string): Promise<void> {
    this.#changedOnDisk.delete(id);
    await super.remove(id);
  }
}

export function createTusUploads(directory = join(tmpdir(), 'blake3-web-demo-uploads')) {
  mkdirSync(directory, { recursive: true });
  const datastore = new TamperingStore(directory);
  const server = new Server({
    path: UPLOAD_PATH,
    datastore,
    allowedHeaders: [ROOT_HEADER],
    exposedHeaders: [VERIFIED_HEADER],
    onUploadFinish: verifyBlake3(datastore),
  });
  return {
    directory,
    middleware(req: IncomingMessage, res: ServerResponse, next: () => void): void {
      if (!req.url?.startsWith(`${UPLOAD_PATH}/`) && req.url !== UPLOAD_PATH) return next();
      void server.handle(req, res);
    },
  };
}

/** /files/ sent on to the tus server at `upstream` (the demo's fleet, `servers/fleet.ts`). */
export function proxyTus(upstream: string) {
  const { hostname, port } = new URL(upstream);
  return {
    middleware(req: IncomingMessage, res: ServerResponse, next: () => void): void {
      if (!req.url?.startsWith(`${UPLOAD_PATH}/`) && req.url !== UPLOAD_PATH) return next();
      const forwarded = request({ hostname, port, method: req.method, path: req.url, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      forwarded.on('error', () =>
        res.headersSent ? res.destroy() : res.writeHead(502).end('tus fleet unreachable\n'),
      );
      req.pipe(forwarded);
    },
  };
}
