// The Bao outboard over any store, across two instances: Blake3Store with `outboard` over an
// S3Store (gofakes3) and over a FileStore, its state and leaf runs in Redis, the requests of one
// upload split at random offsets and sent through either instance, some dropped after part of
// their bytes. The outboard kept in the store once the upload verified is byte for byte
// `bao encode --outboard`'s (chunkGroupLog 0) or BaoEncoder's (chunkGroupLog 4); on the happy
// path nothing is read back. Redis and the S3 server are started here and stopped after.
import { bytesToHex } from '@blake3-web/core';
import { BaoEncoder } from '@blake3-web/stream';
import { Random, testSeed } from '@blake3-web/testkit';
import { FileStore } from '@tus/file-store';
import { S3Store } from '@tus/s3-store';
import { IoRedisKvStore, Upload, type DataStore } from '@tus/utils';
import { Redis } from 'ioredis';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
// @ts-expect-error: plain .mjs shared with the bootstrap
import { baoPath } from '../../stream/setup/bao-setup.mjs';
import {
  Blake3Store,
  fileStoreBytes,
  OUTBOARD_SUFFIX,
  ROOT_HEADER,
  s3StoreBytes,
  s3StoreEraser,
  VERIFIED_HEADER,
  verifyBlake3,
  type HashRecord,
} from '../src/tus-store.ts';
import { startRedis, startS3, type Service } from './_fleet-services.ts';

const MiB = 1 << 20;
const seed = testSeed();
const rng = new Random(seed ^ 0x0f1e);
const work = mkdtempSync(join(tmpdir(), 'blake3-obao-fleet-'));

let redis: Service;
let s3: Service & { endpoint: string };
const clients: Redis[] = [];
before(async () => {
  [redis, s3] = await Promise.all([startRedis(), startS3()]);
});
after(async () => {
  clients.forEach((c) => c.disconnect());
  await Promise.all([redis?.stop(), s3?.stop()]);
  rmSync(work, { recursive: true, force: true });
});

function kv(prefix: string): IoRedisKvStore<HashRecord> {
  const c = new Redis({ port: redis.port, host: '127.0.0.1', maxRetriesPerRequest: 1, commandTimeout: 5000 });
  clients.push(c);
  return new IoRedisKvStore<HashRecord>(c, prefix);
}

type Backend = 's3' | 'file';

/** Two instances over the same bucket or directory and the same Redis keys. */
function fleet(backend: Backend, prefix: string, chunkGroupLog: number, directory: string): Blake3Store[] {
  return [0, 1].map(() => {
    let store: DataStore;
    let read;
    let erase;
    if (backend === 's3') {
      const s3Store = new S3Store({
        partSize: 5 * MiB,
        s3ClientConfig: {
          bucket: 'uploads',
          endpoint: s3.endpoint,
          region: 'us-east-1',
          forcePathStyle: true,
          requestChecksumCalculation: 'WHEN_REQUIRED',
          responseChecksumValidation: 'WHEN_REQUIRED',
          credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
        },
      });
      store = s3Store;
      read = s3StoreBytes(s3Store);
      erase = s3StoreEraser(s3Store);
    } else {
      store = new FileStore({ directory });
      read = fileStoreBytes(directory);
    }
    // States and leaf runs every 1 MiB: runs cut inside requests, not only at their ends.
    return new Blake3Store(store, { kv: kv(prefix), read, erase, stateEvery: MiB, outboard: { chunkGroupLog } });
  });
}

/** A request body that sends `bytes` in random pieces and then, if `fail`, breaks like a dropped connection. */
function body(bytes: Uint8Array, fail: boolean): Readable {
  const pieces: Uint8Array[] = [];
  for (let i = 0; i < bytes.length;) {
    const n = rng.pick([1, 1023, 1024, 1025, rng.int(1, 300_000)]);
    pieces.push(bytes.subarray(i, (i += n)));
  }
  return Readable.from(
    (async function* () {
      for (const piece of pieces) yield Buffer.from(piece);
      if (fail) throw new Error('connection reset');
    })(),
  );
}

async function readAll(store: Blake3Store, id: string): Promise<Uint8Array> {
  const parts: Buffer[] = [];
  for await (const piece of await store.read(id)) parts.push(piece as Buffer);
  return new Uint8Array(Buffer.concat(parts));
}

/** The reference outboard of `data`: bao 0.13's CLI for chunkGroupLog 0, BaoEncoder otherwise. */
function reference(data: Uint8Array, chunkGroupLog: number, name: string): Uint8Array {
  if (chunkGroupLog !== 0) return new BaoEncoder({ chunkGroupLog }).update(data).finalize().outboard;
  const file = join(work, name);
  writeFileSync(file, data);
  execFileSync(baoPath, ['encode', file, `--outboard=${file}.obao`]);
  return new Uint8Array(readFileSync(`${file}.obao`));
}

let n = 0;
for (const backend of ['s3', 'file'] as const)
  describe(`outboard over ${backend === 's3' ? 'S3Store' : 'FileStore'}, two instances, state in Redis`, () => {
    for (const faults of [false, true])
      for (const chunkGroupLog of [0, 4])
        it(`chunkGroupLog ${chunkGroupLog}, ${faults ? 'requests dropped part way' : 'the happy path: nothing read back'} (seed ${seed})`, async () => {
          const id = `u${n++}`;
          const directory = mkdtempSync(join(work, 'files-'));
          const [a, b] = fleet(backend, `${id}:`, chunkGroupLog, directory);
          // S3Store keeps parts of 5 MiB: sizes past a few parts; FileStore any size.
          const length = backend === 's3' ? rng.int(5 * MiB, 13 * MiB) : rng.int(0, 6 * MiB);
          const data = rng.bytes(length);
          const what = `seed ${seed}, ${backend}, chunkGroupLog ${chunkGroupLog}, ${length} bytes`;
          await a.create(new Upload({ id, size: length, offset: 0 }));
          let offset = 0;
          let turn = 0;
          while (offset < length || turn === 0) {
            const store = [a, b][turn++ % 2];
            const end = Math.min(length, offset + rng.int(1, 4 * MiB));
            if (faults && rng.int(0, 2) === 0) {
              await assert.rejects(store.write(body(data.subarray(offset, end), true), id, offset));
              offset = (await store.getUpload(id)).offset;
              continue;
            }
            assert.equal(await store.write(body(data.subarray(offset, end), false), id, offset), end, what);
            offset = end;
          }
          const reference_ = reference(data, chunkGroupLog, id);
          const root = bytesToHex(new BaoEncoder({ chunkGroupLog }).update(data).finalize().hash);
          const request = new Request('http://127.0.0.1/files/x', {
            method: 'PATCH',
            headers: { [ROOT_HEADER]: root },
          });
          const last = [a, b][turn % 2];
          assert.deepEqual(await verifyBlake3(last)(request, await last.getUpload(id)), {
            headers: { [VERIFIED_HEADER]: root },
          });
          if (!faults) assert.equal(a.bytesReadBack + b.bytesReadBack, 0, `${what}: nothing read back`);
          assert.deepEqual(await readAll(a, id + OUTBOARD_SUFFIX), reference_, `${what}: the outboard in the store`);
          assert.deepEqual(await readAll(b, id), data, `${what}: the upload's bytes`);
          await b.remove(id);
          await assert.rejects(readAll(a, id + OUTBOARD_SUFFIX), Error, `${what}: the outboard goes with the upload`);
          rmSync(directory, { recursive: true, force: true });
        });
  });
