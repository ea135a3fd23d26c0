// The memory the store keeps for an upload it builds an outboard for is bounded whatever the
// upload's size (the chaining values of its leaves go to the key-value store, a file per run of
// 8 MiB by default), and released when the upload is removed or expires. Measured as the bytes of ArrayBuffers alive
// after a full garbage collection.
import { Upload } from '@tus/utils';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Blake3FileStore } from '../src/tus-server.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const directory = mkdtempSync(join(tmpdir(), 'blake3-memory-'));
after(() => rmSync(directory, { recursive: true, force: true }));

/** ArrayBuffer bytes alive once everything unreachable is collected. */
async function liveBuffers(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
  }
  return process.memoryUsage().arrayBuffers;
}

const PIECE = Buffer.alloc(64 << 10, 0x5a);
/** A request body of `bytes` bytes, in pieces as a socket gives them. */
const body = (bytes: number): Readable =>
  Readable.from(
    (function* () {
      for (let sent = 0; sent < bytes; sent += PIECE.length)
        yield PIECE.subarray(0, Math.min(PIECE.length, bytes - sent));
    })(),
  );

/** 48 MiB of an upload of 64 MiB in requests of 8 MiB, leaves of 1 KiB (the most parents: 1/16 of the content). */
async function abandonedUpload(store: Blake3FileStore, id: string): Promise<void> {
  await store.create(new Upload({ id, size: 64 << 20, offset: 0, creation_date: new Date().toISOString() }));
  for (let offset = 0; offset < 48 << 20; offset += 8 << 20) await store.write(body(8 << 20), id, offset);
}

/**
 * What the store may keep for an upload between requests: a 1 KiB leaf and at most 64 chaining
 * values of 32 bytes, with room for noise.
 */
const BOUND = 32 << 10;

/**
 * What is left once an upload is released: at most a slab of Node's Buffer pool, which the
 * records' base64 and JSON draw from and which may be a new one since the baseline.
 */
const POOL_SLAB = 8 << 10;

/** Live ArrayBuffer bytes once the process's own first-use buffers (the kernel's memory, scratch) exist. */
async function baselineAfterWarmUp(store: Blake3FileStore): Promise<number> {
  await store.create(new Upload({ id: 'warm-up', size: 4 << 20, offset: 0 }));
  await store.write(body(2 << 20), 'warm-up', 0);
  await store.remove('warm-up');
  return liveBuffers();
}

it('an abandoned upload keeps a bounded outboard state, released by remove', async () => {
  const store = new Blake3FileStore({ directory, outboard: { chunkGroupLog: 0 } });
  const baseline = await baselineAfterWarmUp(store);
  await abandonedUpload(store, 'a');
  const held = (await liveBuffers()) - baseline;
  // 48 Ki leaves: 1.5 MiB of chaining values if they were kept in memory.
  assert.ok(held < BOUND, `the store holds ${held} bytes for the upload, more than ${BOUND}`);
  await store.remove('a');
  const left = (await liveBuffers()) - baseline;
  assert.ok(left <= POOL_SLAB, `released: ${left} bytes left`);
  assert.deepEqual(readdirSync(directory), ['.blake3'], 'the upload and every file beside it are gone');
  assert.deepEqual(readdirSync(join(directory, '.blake3')), [], 'and every record of it');
});

it("an abandoned upload's outboard state is released when tus's sweep expires it", async () => {
  const store = new Blake3FileStore({ directory, outboard: { chunkGroupLog: 0 }, expirationPeriodInMilliseconds: 1 });
  const baseline = await baselineAfterWarmUp(store);
  await abandonedUpload(store, 'b');
  const held = (await liveBuffers()) - baseline;
  assert.ok(held < BOUND, `the store holds ${held} bytes for the upload, more than ${BOUND}`);
  assert.ok(existsSync(join(directory, '.blake3', 'b.obao-run%4016777216.json')), 'its leaves wait on disk');
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(await store.deleteExpired(), 1);
  const left = (await liveBuffers()) - baseline;
  assert.ok(left <= POOL_SLAB, `released: ${left} bytes left`);
  assert.deepEqual(readdirSync(directory), ['.blake3']);
  assert.deepEqual(readdirSync(join(directory, '.blake3')), []);
});
