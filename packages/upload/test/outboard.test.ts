// The store's Bao outboard: built in the same pass as the hash, right after a dropped connection
// and a server restart mid-upload, kept only for an upload that verified, and good for serving
// verified byte ranges of it (stream's slices, workbox's baoRangeHandler).
import { bytesToHex } from '@blake3-web/core';
import { baoDecodeSlice, BaoEncoder, baoOutboardSlice, baoSliceBounds, type BaoTreeOpts } from '@blake3-web/stream';
import { oracle, Random, testSeed } from '@blake3-web/testkit';
import { baoRangeHandler } from '@blake3-web/workbox';
import { Upload } from '@tus/utils';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { Upload as TusUpload, type UploadOptions } from 'tus-js-client';
import { blake3Tus } from '../src/index.ts';
import {
  Blake3FileStore,
  MISMATCH_STATUS,
  ROOT_HEADER,
  VERIFIED_HEADER,
  verifyBlake3,
  type HasherChoice,
} from '../src/tus-server.ts';
import { inThreadHashers } from './_in-thread.ts';
import { startTusServer } from './_tus-server.ts';

const seed = testSeed();
const rng = new Random(seed ^ 0x0b0a);
const directories: string[] = [];
after(() => directories.forEach((d) => rmSync(d, { recursive: true, force: true })));

function directory(): string {
  const dir = mkdtempSync(join(tmpdir(), 'blake3-obao-'));
  directories.push(dir);
  return dir;
}

/** A request body that sends `bytes` in pieces and then, if `fail`, breaks like a dropped connection. */
function body(bytes: Uint8Array, fail = false): Readable {
  return Readable.from(
    (async function* () {
      for (let i = 0; i < bytes.length; i += 10_000) yield Buffer.from(bytes.subarray(i, i + 10_000));
      if (fail) throw new Error('connection reset');
    })(),
  );
}

/** The request that finishes an upload, carrying `root`. */
function finishing(root: string): Request {
  return new Request('http://127.0.0.1/files/x', { method: 'PATCH', headers: { [ROOT_HEADER]: root } });
}

/**
 * Uploads `data` to a store in `dir`: part of it, then a write that fails after other bytes went
 * through (some reach the disk, the rest must count nowhere), then the rest from the offset kept,
 * with `restart` partly on a new store (a restarted server). Returns the last store and the bytes
 * on disk.
 */
async function uploadWithFaults(
  dir: string,
  data: Uint8Array,
  outboard: boolean | BaoTreeOpts,
  restart: boolean,
  hasher: HasherChoice = 'auto',
): Promise<{ store: Blake3FileStore; content: Uint8Array }> {
  const first = new Blake3FileStore({ directory: dir, outboard, hasher });
  await first.create(new Upload({ id: 'u', size: data.length, offset: 0 }));
  const cut = rng.int(1, data.length - 100_000);
  assert.equal(await first.write(body(data.subarray(0, cut)), 'u', 0), cut);
  await assert.rejects(first.write(body(rng.bytes(90_000), true), 'u', cut));
  let { offset } = await first.getUpload('u');
  // More of the right bytes, then the server restarts.
  const more = Math.min(data.length - 1, offset + rng.int(1, 50_000));
  if (more > offset) assert.equal(await first.write(body(data.subarray(offset, more)), 'u', offset), more);
  const restarted = restart ? new Blake3FileStore({ directory: dir, outboard, hasher }) : first;
  ({ offset } = await restarted.getUpload('u'));
  assert.equal(await restarted.write(body(data.subarray(offset)), 'u', offset), data.length);
  return { store: restarted, content: new Uint8Array(readFileSync(join(dir, 'u'))) };
}

describe('Blake3FileStore with outboard', () => {
  // The default hasher ('auto': native where it loads), and WASM.
  for (const [restart, hasher] of [
    [false, 'auto'],
    [true, 'auto'],
    [true, 'wasm'],
  ] as const)
    it(`writes the outboard of the bytes on disk after a dropped connection${restart ? ' and a restart' : ''}, and serves verified ranges (hasher ${hasher})`, async () => {
      const dir = directory();
      const input = rng.bytes(rng.int(300_000, 700_000));
      const { store, content: data } = await uploadWithFaults(dir, input, true, restart, hasher);
      assert.equal(await store.hasherBackend(), hasher === 'wasm' ? 'wasm' : 'native');
      const root = oracle([{ data, length: 32 }])[0];
      assert.deepEqual(await verifyBlake3(store)(finishing(root), await store.getUpload('u')), {
        headers: { 'Upload-Blake3-Verified': root },
      });
      const opts = { chunkGroupLog: 4 };
      const outboard = readFileSync(store.outboardPath('u'));
      assert.equal(store.outboardPath('u'), join(dir, 'u.obao'));
      const reference = new BaoEncoder(opts).update(data).finalize();
      assert.equal(bytesToHex(reference.hash), root, `seed ${seed}`);
      assert.deepEqual(new Uint8Array(outboard), reference.outboard, `seed ${seed}: the outboard of the same bytes`);
      // Ranges served from the file on disk and the outboard, verified against the root.
      const onDisk = data;
      for (let i = 0; i < 20; i++) {
        const start = rng.int(0, data.length - 1);
        const count = rng.int(1, 70_000);
        const bounds = baoSliceBounds(data.length, start, count, opts);
        const slice = baoOutboardSlice(
          outboard,
          onDisk.subarray(bounds.start, bounds.end),
          bounds.start,
          start,
          count,
          opts,
        );
        assert.deepEqual(baoDecodeSlice(slice, root, start, count, opts), data.subarray(start, start + count));
      }
      // A byte changed on disk later is caught in the range that holds it.
      const tampered = Uint8Array.from(onDisk);
      tampered[12_345] ^= 1;
      const bounds = baoSliceBounds(data.length, 12_000, 1000, opts);
      const slice = baoOutboardSlice(
        outboard,
        tampered.subarray(bounds.start, bounds.end),
        bounds.start,
        12_000,
        1000,
        opts,
      );
      assert.throws(() => baoDecodeSlice(slice, root, 12_000, 1000, opts), { name: 'IntegrityError' });
    });

  it("chunkGroupLog 0 (bao 0.13's format): baoRangeHandler serves verified ranges of the upload", async () => {
    const dir = directory();
    const { store, content: data } = await uploadWithFaults(
      dir,
      rng.bytes(rng.int(200_000, 400_000)),
      { chunkGroupLog: 0 },
      false,
    );
    const root = oracle([{ data, length: 32 }])[0];
    await verifyBlake3(store)(finishing(root), await store.getUpload('u'));
    assert.deepEqual(
      new Uint8Array(readFileSync(store.outboardPath('u'))),
      new BaoEncoder().update(data).finalize().outboard,
    );
    // The upload directory as a server with ranges would serve it.
    const serve = async (input: RequestInfo | URL): Promise<Response> => {
      const request = input instanceof Request ? input : new Request(input);
      const file = readFileSync(join(dir, new URL(request.url).pathname.slice('/files/'.length)));
      const range = /^bytes=(\d+)-(\d+)$/.exec(request.headers.get('range') ?? '');
      if (!range) return new Response(file);
      const [first, last] = [Number(range[1]), Math.min(Number(range[2]), file.length - 1)];
      return new Response(file.subarray(first, last + 1), {
        status: 206,
        headers: { 'content-range': `bytes ${first}-${last}/${file.length}` },
      });
    };
    const handler = baoRangeHandler({
      outboard: (request) => `${request.url}.obao`,
      expectedHash: () => root,
      fetch: serve,
    });
    for (let i = 0; i < 8; i++) {
      const first = rng.int(0, data.length - 1);
      const last = Math.min(data.length - 1, first + rng.int(0, 40_000));
      const request = new Request('http://127.0.0.1/files/u', { headers: { range: `bytes=${first}-${last}` } });
      const response = await handler({ request } as never);
      assert.equal(response.status, 206);
      assert.deepEqual(new Uint8Array(await response.arrayBuffer()), data.subarray(first, last + 1));
    }
  });

  it('an upload refused by the check leaves no outboard, and neither does a removed one', async () => {
    const dir = directory();
    const data = rng.bytes(100_000);
    const store = new Blake3FileStore({ directory: dir, outboard: true });
    await store.create(new Upload({ id: 'u', size: data.length, offset: 0 }));
    await store.write(body(data), 'u', 0);
    const wrong = oracle([{ data: data.subarray(1), length: 32 }])[0];
    await assert.rejects(verifyBlake3(store)(finishing(wrong), await store.getUpload('u')), {
      status_code: MISMATCH_STATUS,
    });
    assert.ok(!existsSync(store.outboardPath('u')));
    assert.ok(!existsSync(join(dir, 'u')), 'the upload was removed');

    await store.create(new Upload({ id: 'v', size: data.length, offset: 0 }));
    await store.write(body(data), 'v', 0);
    await verifyBlake3(store)(finishing(oracle([{ data, length: 32 }])[0]), await store.getUpload('v'));
    assert.ok(existsSync(store.outboardPath('v')));
    await store.remove('v');
    assert.ok(!existsSync(store.outboardPath('v')), 'removed with the upload');
  });

  it('the empty upload has the 8-byte outboard of the empty content', async () => {
    const store = new Blake3FileStore({ directory: directory(), outboard: true });
    await store.create(new Upload({ id: 'e', size: 0, offset: 0 }));
    await verifyBlake3(store)(
      finishing(oracle([{ data: new Uint8Array(0), length: 32 }])[0]),
      await store.getUpload('e'),
    );
    assert.deepEqual(new Uint8Array(readFileSync(store.outboardPath('e'))), new Uint8Array(8));
  });

  it('refuses an outboard with a key or context, and options that are not tree options', async () => {
    const directory_ = directory();
    assert.throws(() => new Blake3FileStore({ directory: directory_, outboard: true, key: new Uint8Array(32) }), {
      name: 'TypeError',
      message: /opts\.outboard needs the hash mode/,
    });
    assert.throws(() => new Blake3FileStore({ directory: directory_, outboard: true, context: 'c' }), {
      name: 'TypeError',
    });
    assert.throws(() => new Blake3FileStore({ directory: directory_, outboard: 'yes' as never }), {
      name: 'TypeError',
      message: /opts\.outboard must be a boolean or Bao tree options, got/,
    });
    assert.throws(() => new Blake3FileStore({ directory: directory_, outboard: { chunkGroupLog: 40 } }), {
      name: 'RangeError',
    });
    // FileStore creates its directory in the background.
    await new Promise((resolve) => setTimeout(resolve, 50));
  });
});

describe('the outboard through @tus/server and tus-js-client', () => {
  const { createWorker, closeAll } = inThreadHashers();
  after(closeAll);

  it('a connection dropped mid-request: the upload ends verified and its outboard is that of the file', async () => {
    const server = await startTusServer({ dropAfter: 40_000 }, { outboard: true });
    try {
      const data = rng.bytes(rng.int(600_000, 900_000));
      const b3 = blake3Tus({ createWorker, checkpoints: null });
      const url = await new Promise<string>((resolve, reject) => {
        const upload: TusUpload = new TusUpload(new File([data], 'o.bin'), {
          endpoint: server.endpoint,
          chunkSize: 64 * 1024,
          retryDelays: [0, 10, 10],
          ...b3.options,
          onSuccess: ({ lastResponse }) => {
            assert.equal(lastResponse.getHeader(VERIFIED_HEADER), oracle([{ data, length: 32 }])[0]);
            resolve(upload.url!);
          },
          onError: reject,
        } as UploadOptions);
        upload.start();
      });
      assert.equal(server.drops, 1);
      const id = url.slice(url.lastIndexOf('/') + 1);
      const outboard = readFileSync(server.store.outboardPath(id));
      assert.deepEqual(new Uint8Array(outboard), new BaoEncoder({ chunkGroupLog: 4 }).update(data).finalize().outboard);
    } finally {
      await server.close();
    }
  });
});
