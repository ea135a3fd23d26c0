// A real @tus/server with the verifying file store on 127.0.0.1, and the faults the tests need:
// one PATCH whose connection is dropped after some bytes, a byte flipped in transit, and a
// slow disk from an offset on.
import { Server } from '@tus/server';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import {
  Blake3FileStore,
  ROOT_HEADER,
  VERIFIED_HEADER,
  verifyBlake3,
  type Blake3FileStoreOpts,
} from '../src/tus-server.ts';

export type Faults = {
  /** Drop the connection of the first PATCH once this many of its bytes have arrived. */
  dropAfter?: number;
  /** Flip the byte at this offset of the upload as it arrives. */
  flipAt?: number;
  /** While set, bytes from this offset of the upload on are taken 20 ms a piece of the request. */
  slowFrom?: number;
};

export type TusTestServer = {
  endpoint: string;
  directory: string;
  store: Blake3FileStore;
  faults: Faults;
  drops: number;
  close(): Promise<void>;
};

/** `tus` served on a free port of 127.0.0.1; `onRequest` sees each request before tus does. */
export async function listenTus(
  tus: Server,
  onRequest?: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ endpoint: string; close(): Promise<void> }> {
  const http = createServer((req, res) => {
    onRequest?.(req, res);
    void tus.handle(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(http.address() as AddressInfo).port}/files/`,
    async close() {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

/** The server with `faults`; `storeOpts` go to the store beside its directory. */
export async function startTusServer(
  faults: Faults = {},
  storeOpts: Omit<Blake3FileStoreOpts, 'directory'> = {},
): Promise<TusTestServer> {
  const directory = mkdtempSync(join(tmpdir(), 'blake3-tus-'));
  let socket: Socket | undefined;
  const state = { drops: 0 };
  class FaultyStore extends Blake3FileStore {
    override write(readable: Readable, id: string, offset: number): Promise<number> {
      let at = offset;
      let seen = 0;
      const conn = socket;
      const fault = new Transform({
        transform(chunk: Buffer, _e, callback) {
          const bytes = Buffer.from(chunk);
          const flip = faults.flipAt;
          if (flip !== undefined && flip >= at && flip < at + bytes.length) bytes[flip - at] ^= 1;
          at += bytes.length;
          seen += bytes.length;
          if (faults.dropAfter !== undefined && seen >= faults.dropAfter) {
            faults.dropAfter = undefined;
            state.drops++;
            conn?.destroy();
            return callback(new Error('connection dropped by the test server'));
          }
          if (faults.slowFrom !== undefined && at > faults.slowFrom) setTimeout(() => callback(null, bytes), 20);
          else callback(null, bytes);
        },
      });
      readable.on('error', (e) => fault.destroy(e));
      return super.write(readable.pipe(fault), id, offset);
    }
  }
  const store = new FaultyStore({ ...storeOpts, directory });
  const tus = new Server({
    path: '/files',
    datastore: store,
    allowedHeaders: [ROOT_HEADER],
    exposedHeaders: [VERIFIED_HEADER],
    onUploadFinish: verifyBlake3(store),
  });
  const http = await listenTus(tus, (req) => (socket = req.socket));
  return {
    endpoint: http.endpoint,
    directory,
    store,
    faults,
    get drops() {
      return state.drops;
    },
    async close() {
      await http.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
