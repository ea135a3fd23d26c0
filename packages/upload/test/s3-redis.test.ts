// The verifying wrapper over @tus/s3-store against a real S3 server (gofakes3) with its hash
// state in Redis, two instances side by side: nothing is read back from S3 on the happy path;
// after a state was lost (a killed instance, a Redis restarted with nothing saved) exactly the
// bytes after the last saved state are read back, at the finish (S3 cannot read an upload in
// progress). The Redis locker serialises two instances. Servers are started here and stopped after.
import { bytesToHex } from '@blake3-web/core';
import { oracle, Random } from '@blake3-web/testkit';
import { S3Store } from '@tus/s3-store';
import { IoRedisKvStore, Upload } from '@tus/utils';
import { Redis } from 'ioredis';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { RedisLocker } from '../src/redis-locker.ts';
import {
  Blake3Store,
  MID_REQUEST_KEY_SUFFIX,
  s3StoreBytes,
  s3StoreEraser,
  ROOT_HEADER,
  VERIFIED_HEADER,
  verifyBlake3,
  type HashRecord,
} from '../src/tus-store.ts';
import { startRedis, startS3, type Service } from './_fleet-services.ts';

const MiB = 1 << 20;
const official = (data: Uint8Array): string => oracle([{ data, length: 32 }])[0];
const body = (bytes: Uint8Array): Readable =>
  Readable.from(
    (async function* () {
      for (let i = 0; i < bytes.length; i += 256 * 1024) yield Buffer.from(bytes.subarray(i, i + 256 * 1024));
    })(),
  );
const finishing = (root: string): Request =>
  new Request('http://127.0.0.1/files/x', { method: 'PATCH', headers: { [ROOT_HEADER]: root } });

let redis: Service;
let s3: Service & { endpoint: string };
const clients: Redis[] = [];
const lockers: RedisLocker[] = [];

before(async () => {
  [redis, s3] = await Promise.all([startRedis(), startS3()]);
});
after(async () => {
  await Promise.all(lockers.map((l) => l.close()));
  clients.forEach((c) => c.disconnect());
  await Promise.all([redis?.stop(), s3?.stop()]);
});

function client(): Redis {
  // Fails a command at once while Redis is down instead of queueing it.
  const c = new Redis({
    port: redis.port,
    host: '127.0.0.1',
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    commandTimeout: 2000,
  });
  c.on('error', () => undefined);
  clients.push(c);
  return c;
}

async function ready(c: Redis): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (c.status !== 'ready') {
    if (Date.now() > deadline) throw new Error(`redis client is ${c.status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** One instance: an S3Store wrapped, its state in Redis under a prefix shared by the fleet. */
async function instance(prefix: string, stateEvery?: number) {
  const c = client();
  await ready(c);
  const s3Store = new S3Store({
    partSize: 5 * MiB,
    s3ClientConfig: {
      bucket: 'uploads',
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      // gofakes3 takes no aws-chunked bodies: parts go with their length and no checksum trailer.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    },
  });
  const store = new Blake3Store(s3Store, {
    kv: new IoRedisKvStore<HashRecord>(c, prefix),
    read: s3StoreBytes(s3Store),
    erase: s3StoreEraser(s3Store),
    ...(stateEvery === undefined ? {} : { stateEvery }),
  });
  return { store, s3: s3Store, redis: c, kv: new IoRedisKvStore<HashRecord>(c, prefix) };
}

async function readObject(store: Blake3Store, id: string): Promise<Uint8Array> {
  const parts: Buffer[] = [];
  for await (const piece of await store.read(id)) parts.push(piece as Buffer);
  return new Uint8Array(Buffer.concat(parts));
}

describe('Blake3Store over S3Store, state in Redis', () => {
  it('two instances: nothing read back from S3, the root is the official one, the object is the bytes', async () => {
    const [a, b] = await Promise.all([instance('happy:'), instance('happy:')]);
    const data = new Random(31).bytes(12 * MiB + 777);
    const id = 'happy';
    await a.store.create(new Upload({ id, size: data.length, offset: 0 }));
    // A part and a half, then the rest: the half is S3Store's incomplete part, continued by b.
    const cuts = [0, 5 * MiB + 3 * MiB + 5, data.length];
    assert.equal(await a.store.write(body(data.subarray(cuts[0], cuts[1])), id, 0), cuts[1]);
    assert.equal(await b.store.write(body(data.subarray(cuts[1], cuts[2])), id, cuts[1]), data.length);
    const root = official(data);
    const locker = new RedisLocker(b.redis);
    lockers.push(locker);
    const verdict = await verifyBlake3(b.store, { locker })(finishing(root), await b.store.getUpload(id));
    assert.deepEqual(verdict, { headers: { [VERIFIED_HEADER]: root } });
    assert.equal(a.store.bytesReadBack + b.store.bytesReadBack, 0, 'no byte read back from S3');
    assert.deepEqual(await readObject(a.store, id), data);
    assert.equal(bytesToHex((await a.store.verifiedRoot(id))!), root);
  });

  it('a state lost with an instance killed after S3 kept its bytes: the finish reads back exactly the bytes after the saved state', async () => {
    const [a, b] = await Promise.all([instance('killed:'), instance('killed:')]);
    const data = new Random(32).bytes(11 * MiB + 5);
    const id = 'killed';
    await a.store.create(new Upload({ id, size: data.length, offset: 0 }));
    await a.store.write(body(data.subarray(0, 5 * MiB)), id, 0);
    const saved = await a.kv.get(id);
    await a.store.write(body(data.subarray(5 * MiB, 10 * MiB)), id, 5 * MiB);
    await a.kv.set(id, saved!); // the second request's state never reached Redis
    await b.store.write(body(data.subarray(10 * MiB)), id, 10 * MiB);
    assert.equal(b.store.bytesReadBack, 0, 'S3 cannot read an upload in progress: nothing read yet');
    const root = official(data);
    const verdict = await verifyBlake3(b.store)(finishing(root), await b.store.getUpload(id));
    assert.deepEqual(verdict, { headers: { [VERIFIED_HEADER]: root } });
    assert.equal(b.store.bytesReadBack, data.length - 5 * MiB, 'read back: the bytes after the saved state');
  });

  it('an instance killed mid-request after S3 kept its parts: the next continues from the state saved at the last part, nothing read back', async () => {
    const [a, b] = await Promise.all([instance('midkill:', 5 * MiB), instance('midkill:', 5 * MiB)]);
    const data = new Random(35).bytes(17 * MiB);
    const id = 'midkill';
    await a.store.create(new Upload({ id, size: data.length, offset: 0 }));
    const before = await a.kv.get(id);
    let states: HashRecord | undefined;
    const set = a.kv.set.bind(a.kv);
    const spy = new IoRedisKvStore<HashRecord>(a.redis, 'midkill:');
    spy.set = (key, value) => {
      if (key === id + MID_REQUEST_KEY_SUFFIX) states = value;
      return set(key, value);
    };
    await new Blake3Store(a.s3, { kv: spy, read: s3StoreBytes(a.s3), stateEvery: 5 * MiB }).write(
      body(data.subarray(0, 15 * MiB)),
      id,
      0,
    );
    // As if that instance died after S3 kept the three parts: neither its last save nor the
    // cleanup of its mid-request states happened.
    if (before === undefined) await a.kv.delete(id);
    else await a.kv.set(id, before);
    await a.kv.set(id + MID_REQUEST_KEY_SUFFIX, states!);
    await b.store.write(body(data.subarray(15 * MiB)), id, 15 * MiB);
    const root = official(data);
    assert.deepEqual(await verifyBlake3(b.store)(finishing(root), await b.store.getUpload(id)), {
      headers: { [VERIFIED_HEADER]: root },
    });
    assert.equal(b.store.bytesReadBack, 0, 'the state at 15 MiB was there: nothing read back');
  });

  it('Redis restarted between requests (nothing saved): the upload still verifies, refused when its bytes are not the root', async () => {
    const [a, b] = await Promise.all([instance('restart:'), instance('restart:')]);
    const data = new Random(33).bytes(6 * MiB + 1);
    for (const id of ['restart-good', 'restart-bad']) {
      await a.store.create(new Upload({ id, size: data.length, offset: 0 }));
      await a.store.write(body(data.subarray(0, 5 * MiB)), id, 0);
    }
    await redis.restart();
    await Promise.all([ready(a.redis), ready(b.redis)]);
    const root = official(data);
    const other = data.slice();
    other[data.length - 1] ^= 1;
    await b.store.write(body(data.subarray(5 * MiB)), 'restart-good', 5 * MiB);
    await b.store.write(body(other.subarray(5 * MiB)), 'restart-bad', 5 * MiB);
    const check = verifyBlake3(b.store);
    assert.deepEqual(await check(finishing(root), await b.store.getUpload('restart-good')), {
      headers: { [VERIFIED_HEADER]: root },
    });
    assert.equal(b.store.bytesReadBack, data.length, 'the state was lost: all of it read back');
    await assert.rejects(check(finishing(root), await b.store.getUpload('restart-bad')), { status_code: 460 });
    await assert.rejects(b.store.read('restart-bad'), /NoSuchKey/, 'its bytes are gone from the bucket');
  });

  it('Redis down: the request fails before S3 is touched, and the upload goes on once it is back', async () => {
    const a = await instance('down:');
    const data = new Random(34).bytes(64 * 1024);
    const id = 'down';
    await a.store.create(new Upload({ id, size: data.length, offset: 0 }));
    await a.store.write(body(data.subarray(0, 1000)), id, 0);
    await redis.stop();
    const started = Date.now();
    await assert.rejects(a.store.write(body(data.subarray(1000)), id, 1000));
    assert.ok(Date.now() - started < 10_000, 'answered in bounded time');
    assert.equal((await a.store.getUpload(id)).offset, 1000, 'nothing written');
    await redis.restart();
    await ready(a.redis);
    await a.store.write(body(data.subarray(1000)), id, 1000);
    const root = official(data);
    assert.deepEqual(await verifyBlake3(a.store)(finishing(root), await a.store.getUpload(id)), {
      headers: { [VERIFIED_HEADER]: root },
    });
  });

  it('the Redis locker: a second instance waits for the lock, asking the holder to let go', async () => {
    const [one, two] = [new RedisLocker(client(), { prefix: 'lk:' }), new RedisLocker(client(), { prefix: 'lk:' })];
    lockers.push(one, two);
    const held = one.newLock('u');
    let asked = 0;
    await held.lock(new AbortController().signal, () => void asked++);
    const events = [] as string[];
    const waiting = two.newLock('u');
    const got = waiting.lock(new AbortController().signal, () => undefined).then(() => events.push('second locked'));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(events.length, 0, 'not while the first holds it');
    assert.ok(asked >= 1, 'the holder was asked to let go');
    events.push('first unlocks');
    await held.unlock();
    await got;
    assert.deepEqual(events, ['first unlocks', 'second locked']);
    await waiting.unlock();
    // A wait that outlives its timeout fails with tus's lock timeout.
    const short = new RedisLocker(client(), { prefix: 'lk:', acquireTimeoutMs: 300 });
    lockers.push(short);
    const again = one.newLock('v');
    await again.lock(new AbortController().signal, () => undefined);
    await assert.rejects(
      short.newLock('v').lock(new AbortController().signal, () => undefined),
      {
        body: 'failed to acquire lock before timeout',
      },
    );
    await again.unlock();
  });
});
