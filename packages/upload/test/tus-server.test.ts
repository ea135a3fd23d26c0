// The verifying store hashes exactly the bytes written: bytes that passed through it in a write
// that failed, and were then sent again differently, never count. What the root proves: the bytes
// as received, and with verifyStored the bytes as stored at finish.
import { blake3, bytesToHex } from '@blake3-web/core';
import { Random } from '@blake3-web/testkit';
import { Upload } from '@tus/utils';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import {
  Blake3FileStore,
  MISMATCH_STATUS,
  ROOT_HEADER,
  VERIFIED_HEADER,
  verifyBlake3,
  type Blake3FileStoreOpts,
} from '../src/tus-server.ts';

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

/** The request that finishes an upload, carrying `root`. */
function finishing(root: Uint8Array): Request {
  return new Request('http://127.0.0.1/files/x', { method: 'PATCH', headers: { [ROOT_HEADER]: bytesToHex(root) } });
}

describe('bytes as received and bytes as stored', () => {
  /**
   * Uploads `data` in two writes to a new store made with `opts`, the byte at `flipAt` changed on
   * disk between them (as another process or a bad disk would), and runs the finish check with
   * the root of `data`.
   */
  async function uploadChangedOnDisk(opts: Partial<Blake3FileStoreOpts>, flipAt: number | undefined) {
    const directory = mkdtempSync(join(tmpdir(), 'blake3-store-'));
    const store = new Blake3FileStore({ directory, ...opts });
    const data = new Random(5).bytes(200_000);
    await store.create(new Upload({ id: 'a', size: data.length, offset: 0 }));
    await store.write(body(data.subarray(0, 120_000), false), 'a', 0);
    if (flipAt !== undefined) {
      const file = await open(join(directory, 'a'), 'r+');
      await file.write(Uint8Array.of(data[flipAt] ^ 1), 0, 1, flipAt);
      await file.close();
    }
    await store.write(body(data.subarray(120_000), false), 'a', 120_000);
    const upload = await store.getUpload('a');
    const verdict = verifyBlake3(store)(finishing(blake3(data)), upload).then(
      (ok) => ({ ok }),
      (refused: { status_code: number; body: string }) => ({ refused }),
    );
    return { directory, data, verdict: await verdict };
  }

  it('without verifyStored the root proves the bytes as received: a byte changed on disk between requests is not seen', async () => {
    const { directory, data, verdict } = await uploadChangedOnDisk({}, 50_000);
    try {
      assert.deepEqual(verdict, { ok: { headers: { [VERIFIED_HEADER]: bytesToHex(blake3(data)) } } });
      const stored = readFileSync(join(directory, 'a'));
      assert.notDeepEqual(blake3(stored), blake3(data), 'the file on disk is not what was received');
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  for (const outboard of [false, true])
    it(`with verifyStored${outboard ? ' and outboard' : ''} the upload is refused and removed when a byte changed on disk, kept when none did`, async () => {
      const changed = await uploadChangedOnDisk({ verifyStored: true, outboard }, 50_000);
      try {
        assert.equal('refused' in changed.verdict && changed.verdict.refused.status_code, MISMATCH_STATUS);
        assert.match(
          'refused' in changed.verdict ? changed.verdict.refused.body : '',
          /the bytes stored are not the bytes received/,
        );
        assert.ok(!existsSync(join(changed.directory, 'a')), 'the upload was removed');
        assert.ok(!existsSync(join(changed.directory, 'a.obao')), 'and has no outboard');
      } finally {
        rmSync(changed.directory, { recursive: true, force: true });
      }
      const intact = await uploadChangedOnDisk({ verifyStored: true, outboard }, undefined);
      try {
        assert.deepEqual(intact.verdict, {
          ok: { headers: { [VERIFIED_HEADER]: bytesToHex(blake3(intact.data)) } },
        });
        assert.equal(existsSync(join(intact.directory, 'a.obao')), outboard);
      } finally {
        rmSync(intact.directory, { recursive: true, force: true });
      }
    });

  it('refuses a verifyStored that is not a boolean', () => {
    const directory = mkdtempSync(join(tmpdir(), 'blake3-store-'));
    try {
      assert.throws(() => new Blake3FileStore({ directory, verifyStored: 1 as never }), {
        name: 'TypeError',
        message: /opts\.verifyStored must be a boolean, got/,
      });
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('refuses a key and a context together, as blake3() does, instead of hashing with one of them', () => {
    const directory = mkdtempSync(join(tmpdir(), 'blake3-store-'));
    try {
      assert.throws(() => new Blake3FileStore({ directory, key: new Uint8Array(32), context: 'c' }), {
        name: 'TypeError',
        message: /opts\.key and opts\.context cannot be used together/,
      });
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
