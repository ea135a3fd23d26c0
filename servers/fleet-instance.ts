// One instance of the demo's tus fleet, as its own process: the verifying wrapper over a
// FileStore in a directory every instance shares, its hash state in Redis, the Redis locker,
// each response naming the instance (`Blake3-Instance`, which the Upload page shows per PATCH).
// Started by fleet.ts; prints `listening <port>` when ready. The page's two tamper switches work
// here too: `tamper: 1` flips the upload's middle byte as it arrives, `tamper: stored` flips a byte
// of the file after a request that leaves the upload unfinished (caught by `verifyStored`).
import { FileStore } from '@tus/file-store';
import { Server } from '@tus/server';
import { IoRedisKvStore } from '@tus/utils';
import { RedisLocker } from '@blake3-web/upload/redis-locker';
import {
  Blake3Store,
  fileStoreBytes,
  ROOT_HEADER,
  VERIFIED_HEADER,
  verifyBlake3,
  type HashRecord,
} from '@blake3-web/upload/tus-store';
import { Redis } from 'ioredis';
import { flipInTransit, flipOnDisk } from './tus-uploads.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

export const INSTANCE_HEADER = 'Blake3-Instance';

const name = process.env.INSTANCE ?? 'instance';
const directory = process.env.UPLOADS_DIR!;
const redis = new Redis({
  port: Number(process.env.REDIS_PORT),
  host: '127.0.0.1',
  maxRetriesPerRequest: 1,
  commandTimeout: 2000,
});
redis.on('error', () => undefined);
class TamperingStore extends Blake3Store {
  override async write(readable: Readable, id: string, offset: number): Promise<number> {
    const { metadata, size } = await this.getUpload(id);
    if (size === undefined) return super.write(readable, id, offset);
    if (metadata?.tamper === 'stored') {
      const end = await super.write(readable, id, offset);
      if (end < size && end > 0) await flipOnDisk(join(directory, id), Math.floor(end / 2));
      return end;
    }
    if (metadata?.tamper !== '1') return super.write(readable, id, offset);
    return super.write(flipInTransit(readable, offset, Math.floor(size / 2)), id, offset);
  }
}

const datastore = new TamperingStore(new FileStore({ directory }), {
  kv: new IoRedisKvStore<HashRecord>(redis, 'blake3:'),
  read: fileStoreBytes(directory),
  verifyStored: true,
});
const locker = new RedisLocker(redis);
const tus = new Server({
  path: '/files',
  datastore,
  locker,
  respectForwardedHeaders: true,
  allowedHeaders: [ROOT_HEADER],
  exposedHeaders: [VERIFIED_HEADER, INSTANCE_HEADER],
  onUploadFinish: verifyBlake3(datastore, { locker }),
});
const http = createServer((req, res) => {
  res.setHeader(INSTANCE_HEADER, name);
  void tus.handle(req, res);
});
http.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${(http.address() as AddressInfo).port}\n`));
