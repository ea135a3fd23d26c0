// One tus instance of a fleet, as its own process: @tus/server with the verifying wrapper over
// S3Store, its hash state in Redis and the Redis locker, every response naming the instance
// (`Blake3-Instance`). Configured by its environment; prints `listening <port>` when ready.
// FLIP_AT flips the byte at that offset of any upload as it arrives on this instance;
// UNVERIFIED=1 serves the store alone (the benchmark's baseline); DIRECTORY=<path> puts the
// bytes in a FileStore there instead of S3 (the benchmark's one instance on local disk).
import { FileStore } from '@tus/file-store';
import { S3Store } from '@tus/s3-store';
import { Server } from '@tus/server';
import { IoRedisKvStore } from '@tus/utils';
import { Redis } from 'ioredis';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Transform, type Readable } from 'node:stream';
import { RedisLocker } from '../src/redis-locker.ts';
import {
  Blake3Store,
  ROOT_HEADER,
  s3StoreBytes,
  fileStoreBytes,
  s3StoreEraser,
  VERIFIED_HEADER,
  verifyBlake3,
  type HashRecord,
  type HasherChoice,
} from '../src/tus-store.ts';

export const INSTANCE_HEADER = 'Blake3-Instance';

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
};

const name = env('INSTANCE');
const flipAt = process.env.FLIP_AT === undefined ? undefined : Number(process.env.FLIP_AT);
const redis = new Redis({
  port: Number(env('REDIS_PORT')),
  host: '127.0.0.1',
  maxRetriesPerRequest: 1,
  enableOfflineQueue: false,
  commandTimeout: 2000,
});
redis.on('error', () => undefined);

/** The store this instance serves, and how the wrapper reads back and erases its bytes. */
function backing(directory: string | undefined) {
  if (directory !== undefined) return { store: new FileStore({ directory }), read: fileStoreBytes(directory) };
  const store = new S3Store({
    partSize: 5 << 20,
    s3ClientConfig: {
      bucket: 'uploads',
      endpoint: env('S3_ENDPOINT'),
      region: 'us-east-1',
      forcePathStyle: true,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    },
  });
  return { store, read: s3StoreBytes(store), erase: s3StoreEraser(store) };
}
const { store, read, erase } = backing(process.env.DIRECTORY);

class FlippingStore extends Blake3Store {
  override write(readable: Readable, id: string, offset: number): Promise<number> {
    if (flipAt === undefined) return super.write(readable, id, offset);
    let at = offset;
    const flip = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        const bytes = Buffer.from(chunk);
        if (flipAt >= at && flipAt < at + bytes.length) bytes[flipAt - at] ^= 1;
        at += bytes.length;
        callback(null, bytes);
      },
    });
    readable.on('error', (e) => flip.destroy(e));
    return super.write(readable.pipe(flip), id, offset);
  }
}

const datastore = new FlippingStore(store, {
  kv: new IoRedisKvStore<HashRecord>(redis, 'blake3:'),
  read,
  erase,
  // HASHER=wasm or native: the leaf hasher (default 'auto').
  hasher: (process.env.HASHER ?? 'auto') as HasherChoice,
});
const locker = new RedisLocker(redis, { ttlMs: 3000, acquireTimeoutMs: 10_000 });
const unverified = process.env.UNVERIFIED === '1';
const tus = new Server({
  path: '/files',
  datastore: unverified ? store : datastore,
  locker,
  respectForwardedHeaders: true,
  allowedHeaders: [ROOT_HEADER],
  exposedHeaders: [VERIFIED_HEADER, INSTANCE_HEADER],
  ...(unverified ? {} : { onUploadFinish: verifyBlake3(datastore, { locker }) }),
});

const http = createServer((req, res) => {
  res.setHeader(INSTANCE_HEADER, name);
  void tus.handle(req, res);
});
http.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`listening ${(http.address() as AddressInfo).port}\n`);
});
// A clean exit on SIGTERM, so that `node --cpu-prof` writes the instance's profile.
process.once('SIGTERM', () => process.exit(0));
