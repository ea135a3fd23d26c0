// The demo's tus server at /files/, mounted in Vite's dev and preview servers (127.0.0.1): the
// verifying store from @blake3-web/upload on a directory under the system's temp dir. An upload
// created with the metadata `tamper: 1` has one byte flipped as it arrives, so its verdict fails.
import { Blake3FileStore, ROOT_HEADER, VERIFIED_HEADER, verifyBlake3 } from '@blake3-web/upload/tus-server';
import { Server } from '@tus/server';
import { mkdirSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';

export const UPLOAD_PATH = '/files';

class TamperingStore extends Blake3FileStore {
  override async write(readable: Readable, id: string, offset: number): Promise<number> {
    const { metadata, size } = await this.getUpload(id);
    if (metadata?.tamper !== '1' || size === undefined) return super.write(readable, id, offset);
    const target = Math.floor(size / 2);
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
    return super.write(readable.pipe(flip), id, offset);
  }
}

export function createTusUploads(directory = join(tmpdir(), 'blake3-web-demo-uploads')) {
  mkdirSync(directory, { recursive: true });
  const datastore = new TamperingStore({ directory });
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
