// The verifying wrapper over a FileStore, with its hash state in a key-value store that two
// wrappers (two instances) share: what it hashes is exactly what the store kept, a state is
// continued without reading back what it covers, and a damaged or foreign state is refused and
// rebuilt from the stored bytes. Roots are compared with the official implementation.
import { bytesToHex } from '@blake3-web/core';
import { oracle, Random } from '@blake3-web/testkit';
import { FileStore } from '@tus/file-store';
import { MemoryKvStore, Upload, type KvStore } from '@tus/utils';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { after, describe, it } from 'node:test';
import {
  Blake3Store,
  fileStoreBytes,
  MID_REQUEST_KEY_SUFFIX,
  MISMATCH_STATUS,
  ROOT_HEADER,
  STATE_REFUSED_EVENT,
  VERIFIED_HEADER,
  verifyBlake3,
  type HashRecord,
  type HasherChoice,
} from '../src/tus-store.ts';

const official = (data: Uint8Array): string => oracle([{ data, length: 32 }])[0];

/** A request body that sends `bytes` in pieces of `piece` and then, if `fail`, breaks like a dropped connection. */
function body(bytes: Uint8Array, fail = false, piece = 10_000): Readable {
  return Readable.from(
    (async function* () {
      for (let i = 0; i < bytes.length; i += piece) yield Buffer.from(bytes.subarray(i, i + piece));
      if (fail) throw new Error('connection reset');
    })(),
  );
}

const finishing = (root: string | null, extra: Record<string, string> = {}): Request =>
  new Request('http://127.0.0.1/files/x', {
    method: 'PATCH',
    headers: root === null ? extra : { [ROOT_HEADER]: root, ...extra },
  });

const directories: string[] = [];
after(() => directories.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Two instances over one directory and one key-value store. */
function fleet(kv: KvStore<HashRecord> = new MemoryKvStore<HashRecord>(), hasher: HasherChoice = 'auto') {
  const directory = mkdtempSync(join(tmpdir(), 'blake3-wrap-'));
  directories.push(directory);
  const instance = () => new Blake3Store(new FileStore({ directory }), { kv, read: fileStoreBytes(directory), hasher });
  return { directory, kv, a: instance(), b: instance() };
}

// The native hasher where it loads (the default, 'auto', which the other tests use) and WASM.
for (const hasher of ['native', 'wasm'] as const)
  describe(`Blake3Store over a FileStore, hashing with ${hasher}`, () => {
    it('continues on another instance from the shared state, reading nothing back, and the root is the official one', async () => {
      const { a, b, directory } = fleet(undefined, hasher);
      assert.equal(await a.hasherBackend(), hasher);
      const data = new Random(11).bytes(300_001);
      await a.create(new Upload({ id: 'u', size: data.length, offset: 0 }));
      // Request boundaries off the chunk grid, alternating instances.
      const cuts = [0, 70_001, 70_002, 150_000, 222_222, data.length];
      for (let i = 0; i + 1 < cuts.length; i++) {
        const at = i % 2 === 0 ? a : b;
        assert.equal(await at.write(body(data.subarray(cuts[i], cuts[i + 1])), 'u', cuts[i]), cuts[i + 1]);
      }
      const upload = await b.getUpload('u');
      const root = official(data);
      assert.deepEqual(await verifyBlake3(b)(finishing(root), upload), { headers: { [VERIFIED_HEADER]: root } });
      assert.equal(a.bytesReadBack + b.bytesReadBack, 0, 'no byte read back');
      assert.deepEqual(readFileSync(join(directory, 'u')), Buffer.from(data));
      // Final on every instance.
      assert.deepEqual(await verifyBlake3(a)(finishing(root), upload), { headers: { [VERIFIED_HEADER]: root } });
      await assert.rejects(a.write(body(data.subarray(0, 10)), 'u', data.length));
      assert.equal(readFileSync(join(directory, 'u')).length, data.length, 'no byte taken after it verified');
    });

    it('hashes exactly the bytes kept when a request breaks, whatever passed through it', async () => {
      const { a, b, directory } = fleet(undefined, hasher);
      const data = new Random(12).bytes(260_000);
      await a.create(new Upload({ id: 'u', size: data.length, offset: 0 }));
      await a.write(body(data.subarray(0, 100_000)), 'u', 0);
      // Other bytes than the retry's go through the hash, then the connection breaks.
      await assert.rejects(a.write(body(new Random(13).bytes(90_000), true), 'u', 100_000));
      const { offset } = await b.getUpload('u');
      assert.ok(offset >= 100_000 && offset <= 190_000, `offset ${offset}`);
      await b.write(body(data.subarray(offset)), 'u', offset);
      const stored = new Uint8Array(readFileSync(join(directory, 'u')));
      assert.equal(bytesToHex(await b.rootOf('u', data.length)), official(stored));
      // The broken request's bytes that the store kept were re-read once: at most that request's worth.
      assert.ok(a.bytesReadBack <= 90_000, `read back ${a.bytesReadBack}`);
    });
  });

describe('Blake3Store over a FileStore', () => {
  it('hashes with the native addon by default where it is built (auto)', async () => {
    assert.equal(await fleet().a.hasherBackend(), 'native');
  });

  it('bytes that passed the hash but that the store did not keep are taken back (a store that buffers and loses its buffer)', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'blake3-wrap-'));
    directories.push(directory);
    // Reads a request's whole body (so every byte passes the hash), keeps its first part, fails.
    class LosingStore extends FileStore {
      override async write(readable: Readable, id: string, offset: number): Promise<number> {
        const parts: Buffer[] = [];
        for await (const piece of readable) parts.push(piece as Buffer);
        const all = Buffer.concat(parts);
        if (all.length < 50_000) return super.write(Readable.from([all]), id, offset);
        await super.write(Readable.from([all.subarray(0, 33_333)]), id, offset);
        throw new Error('lost the buffered bytes');
      }
    }
    const kv = new MemoryKvStore<HashRecord>();
    const store = new Blake3Store(new LosingStore({ directory }), { kv, read: fileStoreBytes(directory) });
    const data = new Random(21).bytes(120_000);
    await store.create(new Upload({ id: 'u', size: data.length, offset: 0 }));
    await store.write(body(data.subarray(0, 40_000)), 'u', 0);
    await assert.rejects(store.write(body(data.subarray(40_000)), 'u', 40_000), /lost the buffered bytes/);
    assert.equal((await store.getUpload('u')).offset, 73_333);
    assert.equal(store.bytesReadBack, 33_333, 'the kept part read back once');
    for (let at = 73_333; at < data.length; at += 40_000)
      await store.write(body(data.subarray(at, Math.min(data.length, at + 40_000))), 'u', at);
    const root = official(data);
    assert.deepEqual(await verifyBlake3(store)(finishing(root), await store.getUpload('u')), {
      headers: { [VERIFIED_HEADER]: root },
    });
  });

  it('an instance killed after its store kept bytes: the next reads back exactly the bytes after the saved state', async () => {
    const { a, b, kv } = fleet();
    const data = new Random(14).bytes(200_000);
    await a.create(new Upload({ id: 'u', size: data.length, offset: 0 }));
    await a.write(body(data.subarray(0, 64_500)), 'u', 0);
    const saved = await kv.get('u');
    await a.write(body(data.subarray(64_500, 150_000)), 'u', 64_500);
    // The state of the second request was never saved (killed between its write and its save).
    await kv.set('u', saved!);
    await b.write(body(data.subarray(150_000)), 'u', 150_000);
    assert.equal(b.bytesReadBack, 150_000 - 64_500);
    assert.equal(bytesToHex(await b.rootOf('u', data.length)), official(data));
  });

  it('an instance killed mid-request: the next continues from the last state saved on the way, reading back less than stateEvery', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'blake3-wrap-'));
    directories.push(directory);
    const kv = new MemoryKvStore<HashRecord>();
    let lastStates: HashRecord | undefined;
    const set = kv.set.bind(kv);
    kv.set = (key, value) => {
      if (key === 'u' + MID_REQUEST_KEY_SUFFIX) lastStates = value;
      return set(key, value);
    };
    const every = 16 * 1024;
    const instance = () =>
      new Blake3Store(new FileStore({ directory }), { kv, read: fileStoreBytes(directory), stateEvery: every });
    const [a, b] = [instance(), instance()];
    const data = new Random(22).bytes(200_000);
    await a.create(new Upload({ id: 'u', size: data.length, offset: 0 }));
    await a.write(body(data.subarray(0, 10_000)), 'u', 0);
    const before = await kv.get('u');
    await a.write(body(data.subarray(10_000, 150_000)), 'u', 10_000);
    assert.equal(await kv.get('u' + MID_REQUEST_KEY_SUFFIX), undefined, 'dropped once the request ended');
    // As if a was killed with 123,456 bytes on disk: its last save never happened, the states
    // saved on the way are there.
    await kv.set('u', before!);
    await kv.set('u' + MID_REQUEST_KEY_SUFFIX, lastStates!);
    await truncate(join(directory, 'u'), 123_456);
    await b.write(body(data.subarray(123_456)), 'u', 123_456);
    assert.equal(b.bytesReadBack, 123_456 - Math.floor(123_456 / every) * every);
    assert.equal(bytesToHex(await b.rootOf('u', data.length)), official(data));
  });

  for (const [name, damage] of [
    [
      'damaged (one byte of its chaining values changed)',
      (r: HashRecord) => ({ ...r, cvs: flipBase64(r.cvs as string) }),
    ],
    [
      'damaged (its checksum recomputed by nobody, its offset moved)',
      (r: HashRecord) => ({ ...r, offset: (r.offset as number) + 1 }),
    ],
    ['not a state at all', () => ({ hello: 'world' })],
  ] as const)
    it(`a state ${name} is refused as such and rebuilt from the stored bytes`, async () => {
      const { a, b, kv } = fleet();
      const refused: string[] = [];
      b.on(STATE_REFUSED_EVENT, (_id: string, e: Error) => refused.push(e.message));
      const data = new Random(15).bytes(120_000);
      await a.create(new Upload({ id: 'u', size: data.length, offset: 0 }));
      await a.write(body(data.subarray(0, 80_000)), 'u', 0);
      await kv.set('u', damage((await kv.get('u'))!));
      await b.write(body(data.subarray(80_000)), 'u', 80_000);
      assert.equal(refused.length, 1);
      assert.match(refused[0], /shared hash state refused/);
      assert.equal(b.bytesReadBack, 80_000, 'rebuilt from byte 0');
      assert.equal(bytesToHex(await b.rootOf('u', data.length)), official(data));
    });

  it("another upload's state is refused as foreign and rebuilt", async () => {
    const { a, b, kv } = fleet();
    const reasons: string[] = [];
    b.on(STATE_REFUSED_EVENT, (_id: string, e: { reason: string }) => reasons.push(e.reason));
    const data = new Random(16).bytes(50_000);
    for (const id of ['u', 'v']) {
      await a.create(new Upload({ id, size: data.length, offset: 0 }));
      await a.write(body(data.subarray(0, 30_000 + (id === 'v' ? 0 : 1))), id, 0);
    }
    await kv.set('v', (await kv.get('u'))!); // u's state, 30,001 bytes, under v's key
    await b.write(body(data.subarray(30_000)), 'v', 30_000);
    assert.deepEqual(reasons, ['foreign']);
    assert.equal(bytesToHex(await b.rootOf('v', data.length)), official(data));
  });

  it('a key-value store that is down fails the request before the upload is touched', async () => {
    const kv = new MemoryKvStore<HashRecord>();
    const { a, b } = fleet(kv);
    const data = new Random(17).bytes(40_000);
    await a.create(new Upload({ id: 'u', size: data.length, offset: 0 }));
    await a.write(body(data.subarray(0, 20_000)), 'u', 0);
    const get = kv.get;
    kv.get = () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6379'));
    await assert.rejects(b.write(body(data.subarray(20_000)), 'u', 20_000), /ECONNREFUSED/);
    assert.equal((await b.getUpload('u')).offset, 20_000, 'no byte written');
    kv.get = get;
    await b.write(body(data.subarray(20_000)), 'u', 20_000);
    const upload = await b.getUpload('u');
    const root = official(data);
    assert.deepEqual(await verifyBlake3(b)(finishing(root), upload), { headers: { [VERIFIED_HEADER]: root } });
  });

  for (const [name, header] of [
    ['missing', null],
    ['short', 'ab'.repeat(31)],
    ['upper-case', null],
    ['repeated', null],
  ] as const)
    it(`refuses and removes an upload whose ${ROOT_HEADER} is ${name}`, async () => {
      const { a } = fleet();
      const data = new Random(18).bytes(5000);
      await a.create(new Upload({ id: 'u', size: data.length, offset: 0 }));
      await a.write(body(data), 'u', 0);
      const root = official(data);
      const req =
        name === 'upper-case'
          ? finishing(root.toUpperCase())
          : name === 'repeated'
            ? new Request('http://127.0.0.1/files/x', {
                method: 'PATCH',
                headers: [
                  [ROOT_HEADER, root],
                  [ROOT_HEADER, root],
                ],
              })
            : finishing(header);
      await assert.rejects(verifyBlake3(a)(req, await a.getUpload('u')), (e: { status_code: number; body: string }) => {
        assert.equal(e.status_code, MISMATCH_STATUS);
        assert.match(e.body, name === 'missing' ? /carried no Upload-Blake3/ : /64 lowercase hex digits/);
        assert.ok(!e.body.includes(root), 'the computed hash is not disclosed');
        return true;
      });
      await assert.rejects(a.getUpload('u'), 'removed');
    });

  it('refuses a root that is not the bytes and never discloses the computed one', async () => {
    const { a } = fleet();
    const data = new Random(19).bytes(3000);
    await a.create(new Upload({ id: 'u', size: data.length, offset: 0 }));
    await a.write(body(data), 'u', 0);
    const wrong = official(new Random(20).bytes(3000));
    await assert.rejects(verifyBlake3(a)(finishing(wrong), await a.getUpload('u')), (e: { body: string }) => {
      assert.match(e.body, /do not have the root the client sent/);
      assert.ok(!e.body.includes(official(data)));
      return true;
    });
  });

  it('refuses bad options with the argument named', () => {
    const store = new FileStore({ directory: tmpdir() });
    assert.throws(() => new Blake3Store({} as never), {
      name: 'TypeError',
      message: /store must be a @tus\/utils DataStore/,
    });
    assert.throws(() => new Blake3Store(store, { kv: {} as never }), {
      name: 'TypeError',
      message: /opts\.kv must be a KvStore/,
    });
    assert.throws(() => new Blake3Store(store, { read: 1 as never }), {
      name: 'TypeError',
      message: /opts\.read must be a function/,
    });
  });
});

function flipBase64(text: string): string {
  const bytes = Buffer.from(text, 'base64');
  bytes[0] ^= 1;
  return bytes.toString('base64');
}

describe('a body that fails before the store reads it', () => {
  it('while the key-value store answers: the write is refused, no error escapes unhandled, and the upload goes on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'blake3-early-'));
    try {
      class SlowKv extends MemoryKvStore<HashRecord> {
        override async get(key: string) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          return super.get(key);
        }
      }
      const store = new Blake3Store(new FileStore({ directory: dir }), {
        kv: new SlowKv(),
        read: fileStoreBytes(dir),
      });
      const data = new Random(35).bytes(50_000);
      await store.create(new Upload({ id: 'e', size: data.length, offset: 0 }));
      // The connection breaks after 10 ms, while the state is still being read.
      const broken = new PassThrough();
      broken.write(Buffer.from(data.subarray(0, 1000)));
      setTimeout(() => broken.destroy(new Error('connection reset')), 10);
      await assert.rejects(store.write(broken, 'e', 0));
      const { offset } = await store.getUpload('e');
      assert.equal(await store.write(body(data.subarray(offset)), 'e', offset), data.length);
      assert.equal(bytesToHex(await store.rootOf('e', data.length)), official(data));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
