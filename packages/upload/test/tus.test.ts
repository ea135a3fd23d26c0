// tus-js-client in Node, through the adapter, against the real @tus/server with the verifying
// store: each byte read once, the root sent with the last request and checked by the server,
// resumes checked against their saved checkpoint, another file's upload left for a fresh one,
// and every refusal, with the saved state it discards.
import { blake3, bytesToHex, hexToBytes } from '@blake3-web/core';
import { oracle, Random } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Upload, type UploadOptions } from 'tus-js-client';
import { blake3Tus, type Blake3TusOpts, type Checkpoint } from '../src/index.ts';
import { makeCheckpoint } from '../src/checkpoint.ts';
import { MISMATCH_STATUS } from '../src/tus-server.ts';
import { blobBodyStack, inThreadHashers, memoryStore } from './_in-thread.ts';
import { discards, uploadThroughAdapter, type Outcome } from './_tus-client.ts';
import { startTusServer, type TusTestServer } from './_tus-server.ts';

const CHUNK = 64 * 1024;
const SIZE = 1_000_000 + 123;
const data = new Random(21).bytes(SIZE);
const file = new File([data], 'data.bin', { lastModified: 1 });
const ROOT = bytesToHex(blake3(data));
/**
 * Another file with the same name, size, type and date (`cp -p`, rsync, unzip): tus's fingerprint
 * of it is the same. Its bytes differ only near its start, so a hash resumed from the first
 * file's checkpoint would be the first file's root, which the server holds and would accept.
 */
const other = data.map((b, i) => (i >= 1000 && i < 9000 ? b ^ 0x5a : b));
const otherFile = new File([other], 'data.bin', { lastModified: 1 });
const [OTHER_ROOT] = oracle([{ data: other, length: 32 }]);

/** What the server holds of the upload at `url`: its offset, or null when it has none. */
async function serverOffset(url: string): Promise<number | null> {
  const head = await fetch(url, { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0' } });
  return head.ok ? Number(head.headers.get('Upload-Offset')) : null;
}

/** The checkpoint's state, well formed, named for another upload or mode. */
function remade(c: Checkpoint, upload: string, mode: string): Checkpoint {
  return makeCheckpoint(upload, mode, { offset: c.offset, cvs: hexToBytes(c.cvs) });
}

const { createWorker, closeAll } = inThreadHashers();

const runUploadWith = (
  endpoint: string,
  opts: Blake3TusOpts,
  extra: Partial<UploadOptions> = {},
  stopAt?: number,
  input: File = file,
) => uploadThroughAdapter(endpoint, input, { createWorker, ...opts }, { chunkSize: CHUNK, ...extra }, stopAt);

// Both ways of feeding the worker: the adapter reads each slice and hands its bytes to the
// request and the worker (Node's default), or tus sends the File's own slices and the worker
// reads them (browsers' default; here over a stack that sends Blob bodies as browsers do).
for (const readInWorker of [false, true])
  describe(`tus-js-client through the adapter (${readInWorker ? 'the worker reads' : 'the adapter reads'}), @tus/server with the verifying store`, () => {
    const runUpload = (
      endpoint: string,
      opts: Blake3TusOpts,
      extra: Partial<UploadOptions> = {},
      stopAt?: number,
      input: File = file,
    ) =>
      runUploadWith(
        endpoint,
        { readInWorker, ...opts },
        readInWorker ? { httpStack: blobBodyStack(), ...extra } : extra,
        stopAt,
        input,
      );
    let server: TusTestServer;
    before(async () => {
      server = await startTusServer();
    });
    after(async () => {
      // Uploads stopped midway leave their hasher open, as a page that goes away would.
      closeAll();
      await server.close();
    });

    it('reads each byte once and ends verified, the root equal to blake3()', async () => {
      const store = memoryStore();
      const { b3, done } = runUpload(server.endpoint, { checkpoints: store });
      const out = await done;
      assert.equal(out.error, undefined);
      assert.equal(out.verified, ROOT);
      assert.equal(bytesToHex(await b3.root), ROOT);
      assert.equal(b3.bytesRead, SIZE);
      assert.equal(store.map.size, 0, 'the checkpoint is deleted once the server verified the upload');
    });

    it('an empty file: the root is the hash of no bytes, sent when the upload is created and verified', async () => {
      const empty = new File([], 'empty.bin', { lastModified: 1 });
      const { b3, done } = runUpload(server.endpoint, { checkpoints: null }, {}, undefined, empty);
      const out = await done;
      assert.equal(out.error, undefined);
      const [EMPTY_ROOT] = oracle([{ data: new Uint8Array(0), length: 32 }]);
      assert.equal(out.verified, EMPTY_ROOT);
      assert.equal(bytesToHex(await b3.root), EMPTY_ROOT);
      assert.equal(b3.bytesRead, 0);
    });

    it('a connection dropped mid-request resumes and ends verified', async () => {
      server.faults.dropAfter = 40_000;
      const { b3, done } = runUpload(server.endpoint, { checkpoints: null });
      const out = await done;
      assert.equal(server.drops, 1);
      assert.equal(out.error, undefined);
      assert.equal(out.verified, ROOT);
      if (readInWorker)
        assert.equal(b3.bytesRead, SIZE, 'the request sends the file again, the worker reads nothing twice');
      else assert.equal(b3.bytesRead, SIZE + CHUNK, 'the dropped slice is read once more, nothing else');
    });

    it('resumes after a reload: the part the server holds is hashed from the file again, checked against the checkpoint', async () => {
      const store = memoryStore();
      const first = await runUpload(server.endpoint, { checkpoints: store }, {}, 5 * CHUNK + 100).done;
      assert.equal(first.ok, false);
      const saved = store.map.get(first.url!) as Checkpoint;
      assert.ok(saved.offset > 0, 'a checkpoint was saved under the upload URL');
      assert.equal(saved.upload, first.url);
      assert.ok(saved.offset <= (await serverOffset(first.url!))!);
      const { seen, onDiscard } = discards();
      const { b3, done } = runUpload(server.endpoint, { checkpoints: store, onDiscard }, { uploadUrl: first.url! });
      const out = await done;
      assert.equal(out.error, undefined);
      assert.equal(out.verified, ROOT);
      assert.equal(out.url, first.url, 'the same upload went on');
      assert.deepEqual(seen(), []);
      assert.equal(b3.bytesRead, SIZE, 'the part the server holds read once more for the hash, the rest once');
      assert.equal(store.map.size, 0);
    });

    it("another file of the same name, size, type and date: the half-uploaded file's upload is left as it is, a fresh one ends verified with this file's root", async () => {
      const store = memoryStore();
      const first = await runUpload(server.endpoint, { checkpoints: store }, {}, 5 * CHUNK + 100).done;
      const held = await serverOffset(first.url!);
      assert.ok(held !== null && held > 0 && store.map.size === 1);
      const { seen, onDiscard } = discards();
      // tus resumes the first file's upload, as its fingerprint (name, size, type, date) says.
      const { b3, done } = runUpload(
        server.endpoint,
        { checkpoints: store, onDiscard },
        { uploadUrl: first.url! },
        undefined,
        otherFile,
      );
      const out = await done;
      assert.equal(out.error, undefined);
      assert.equal(out.verified, OTHER_ROOT, "the server verified this file's root (the official blake3's)");
      assert.equal(bytesToHex(await b3.root), OTHER_ROOT);
      assert.notEqual(out.url, first.url, 'a fresh upload');
      assert.deepEqual(seen(), [['other-file', first.url, true]]);
      assert.equal(await serverOffset(first.url!), held, "no byte of this file went to the other file's upload");
      assert.equal(store.map.size, 0, "the other file's checkpoint is deleted with its upload left behind");
    });

    it('an upload of another length is left for a fresh one, without reading the file for it', async () => {
      const first = await runUpload(server.endpoint, { checkpoints: null }, {}, 5 * CHUNK + 100).done;
      const shorter = new File([data.subarray(0, SIZE - 5000)], 'data.bin', { lastModified: 1 });
      const { seen, onDiscard } = discards();
      const { b3, done } = runUpload(
        server.endpoint,
        { checkpoints: null, onDiscard },
        { uploadUrl: first.url! },
        undefined,
        shorter,
      );
      const out = await done;
      assert.equal(out.error, undefined);
      assert.equal(out.verified, oracle([{ data: data.subarray(0, SIZE - 5000), length: 32 }])[0]);
      assert.notEqual(out.url, first.url);
      assert.deepEqual(seen(), [['other-file', first.url, true]]);
      assert.equal(b3.bytesRead, SIZE - 5000);
    });

    it('another file of the same metadata without checkpoints: the server refuses the resume (460), a fresh upload ends verified', async () => {
      const first = await runUpload(server.endpoint, { checkpoints: null }, {}, 5 * CHUNK + 100).done;
      const { seen, onDiscard } = discards();
      const { b3, done } = runUpload(
        server.endpoint,
        { checkpoints: null, onDiscard },
        { uploadUrl: first.url! },
        undefined,
        otherFile,
      );
      const out = await done;
      assert.equal(out.error, undefined);
      assert.equal(out.verified, OTHER_ROOT);
      assert.equal(bytesToHex(await b3.root), OTHER_ROOT);
      assert.notEqual(out.url, first.url);
      assert.deepEqual(seen(), [['refused', first.url, true]]);
    });

    for (const [damage, reason, spoil] of [
      [
        'a damaged chaining value',
        'corrupt',
        (c: Checkpoint) => ({ ...c, cvs: c.cvs.replace(/^./, (d) => (d === 'a' ? 'b' : 'a')) }),
      ],
      ['a wrong count of chaining values', 'corrupt', (c: Checkpoint) => ({ ...c, cvs: c.cvs.slice(64) })],
      ["another upload's", 'foreign', (c: Checkpoint) => remade(c, `${c.upload}x`, c.mode)],
      ["another mode's", 'foreign', (c: Checkpoint) => remade(c, c.upload, 'derive:other')],
      ['of another version', 'version', (c: Checkpoint) => ({ ...c, version: 2 }) as unknown as Checkpoint],
    ] as const)
      it(`a saved checkpoint refused (${damage}) is deleted and said so; the upload goes on and ends verified`, async () => {
        const store = memoryStore();
        const first = await runUpload(server.endpoint, { checkpoints: store }, {}, 3 * CHUNK).done;
        const [[key, saved]] = store.map as Map<string, Checkpoint>;
        store.map.set(key, spoil(saved));
        const { events, seen, onDiscard } = discards();
        const out = await runUpload(server.endpoint, { checkpoints: store, onDiscard }, { uploadUrl: first.url! }).done;
        assert.equal(out.error, undefined);
        assert.equal(out.verified, ROOT);
        assert.deepEqual(seen(), [[reason, first.url, false]]);
        assert.match(events[0].message, /^checkpoint refused: .*; it was deleted$/);
        assert.equal(store.map.size, 0);
      });

    it('an upload the server refuses (460) loses its saved checkpoint, and the next try starts clean', async () => {
      const store = memoryStore();
      const { seen, onDiscard } = discards();
      server.faults.flipAt = 777_777;
      let out: Outcome;
      try {
        out = await runUpload(server.endpoint, { checkpoints: store, onDiscard }).done;
      } finally {
        server.faults.flipAt = undefined;
      }
      assert.equal(out.error?.originalResponse?.getStatus(), MISMATCH_STATUS);
      assert.equal(store.map.size, 0, 'no checkpoint of the refused upload is kept');
      assert.deepEqual(seen(), [['refused', out.url, false]]);
      const next = discards();
      const again = await runUpload(
        server.endpoint,
        { checkpoints: store, onDiscard: next.onDiscard },
        { uploadUrl: out.url! },
      ).done;
      assert.equal(again.error, undefined);
      assert.equal(again.verified, ROOT);
      assert.notEqual(again.url, out.url, 'the refused upload is gone: tus created a new one');
      assert.deepEqual(next.seen(), []);
    });

    it('a byte changed in transit: the server refuses the upload with 460 and discards it', async () => {
      server.faults.flipAt = 777_777;
      try {
        const out = await runUpload(server.endpoint, { checkpoints: null }).done;
        assert.equal(out.ok, false);
        assert.equal(out.error?.originalResponse?.getStatus(), MISMATCH_STATUS);
        assert.match(out.error!.originalResponse!.getBody(), /do not have the root the client sent/);
        assert.ok(!existsSync(join(server.directory, out.url!.split('/').at(-1)!)), 'the bytes are not kept');
      } finally {
        server.faults.flipAt = undefined;
      }
    });

    it('an upload without a root is refused (fail closed)', async () => {
      const out = await new Promise<Outcome>((resolve) => {
        const upload = new Upload(Buffer.from(data), {
          endpoint: server.endpoint,
          chunkSize: CHUNK,
          retryDelays: [],
          onSuccess: () => resolve({ ok: true, url: upload.url }),
          onError: (error) => resolve({ ok: false, error: error as Outcome['error'], url: upload.url }),
        } as UploadOptions);
        upload.start();
      });
      assert.equal(out.error?.originalResponse?.getStatus(), MISMATCH_STATUS);
      assert.match(out.error!.originalResponse!.getBody(), /no Upload-Blake3 header/);
    });

    it('refuses a chunkSize that is not a finite power of two', async () => {
      const out = await runUpload(server.endpoint, { checkpoints: null }, { chunkSize: 100_000, retryDelays: [] }).done;
      assert.ok(
        out.error instanceof RangeError && /chunkSize must be a power of two/.test(out.error.message),
        String(out.error),
      );
    });
  });

it('refuses hooks that are not functions, naming them', () => {
  for (const hook of ['onDiscard', 'onShouldRetry', 'onBeforeRequest', 'onAfterResponse'])
    assert.throws(() => blake3Tus({ createWorker, [hook]: 'yes' }), {
      name: 'TypeError',
      message: new RegExp(`^opts\\.${hook} must be a function, got `),
    });
});

it('refuses a key and a context together when the adapter is made, not at the first upload', () => {
  assert.throws(() => blake3Tus({ createWorker, key: new Uint8Array(32), context: 'c' }), {
    name: 'TypeError',
    message: /opts\.key and opts\.context cannot be used together/,
  });
});
