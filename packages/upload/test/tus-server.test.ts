// The verifying store hashes exactly the bytes on disk: bytes that passed through it in a write
// that failed, and were then sent again differently, never count.
import { blake3 } from '@blake3-web/core';
import { Random } from '@blake3-web/testkit';
import { Upload } from '@tus/utils';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { it } from 'node:test';
import { Blake3FileStore } from '../src/tus-server.ts';

/** A request body that sends `bytes` and then, if `fail`, breaks like a dropped connection. */
function body(bytes: Uint8Array, fail: boolean): Readable {
  return Readable.from(
    (async function* () {
      for (let i = 0; i < bytes.length; i += 10_000) yield Buffer.from(bytes.subarray(i, i + 10_000));
      if (fail) throw new Error('connection reset');
    })(),
  );
}

it('bytes of a failed write that the retry sends differently are hashed as they are on disk', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'blake3-store-'));
  try {
    const store = new Blake3FileStore({ directory });
    const data = new Random(3).bytes(300_000);
    await store.create(new Upload({ id: 'a', size: data.length, offset: 0 }));
    assert.equal(await store.write(body(data.subarray(0, 100_000), false), 'a', 0), 100_000);
    // A write that fails after its bytes went through the hash: other bytes than the retry's.
    const other = new Random(4).bytes(150_000);
    await assert.rejects(store.write(body(other, true), 'a', 100_000));
    const { offset } = await store.getUpload('a');
    assert.ok(offset >= 100_000 && offset <= 250_000, `offset ${offset}`);
    const end = await store.write(body(data.subarray(offset), false), 'a', offset);
    assert.equal(end, data.length);
    const onDisk = readFileSync(join(directory, 'a'));
    assert.deepEqual(await store.rootOf('a', data.length), blake3(onDisk));
    // A new store (a restarted server) reads the bytes it did not see from disk.
    assert.deepEqual(await new Blake3FileStore({ directory }).rootOf('a', data.length), blake3(onDisk));
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
