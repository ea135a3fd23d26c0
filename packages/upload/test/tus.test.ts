// tus-js-client in Node, through the adapter, against the real @tus/server with the verifying
// store: each byte read once, the root sent with the last request and checked by the server,
// resumes from a saved checkpoint, and every refusal.
import { blake3, bytesToHex } from '@blake3-web/core';
import { oracle, Random } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Upload, type UploadOptions } from 'tus-js-client';
import { blake3Tus, CheckpointError, type Blake3TusOpts, type Checkpoint } from '../src/index.ts';
import { MISMATCH_STATUS, VERIFIED_HEADER } from '../src/tus-server.ts';
import { blobBodyStack, inThreadHashers, memoryStore } from './_in-thread.ts';
import { startTusServer, type TusTestServer } from './_tus-server.ts';

const CHUNK = 64 * 1024;
const SIZE = 1_000_000 + 123;
const data = new Random(21).bytes(SIZE);
const file = new File([data], 'data.bin', { lastModified: 1 });
const ROOT = bytesToHex(blake3(data));

const { createWorker, closeAll } = inThreadHashers();

type Outcome = {
  ok: boolean;
  error?: Error & { originalResponse?: { getStatus(): number; getBody(): string } | null };
  verified?: string;
  url: string | null;
};

function runUploadWith(
  endpoint: string,
  opts: Blake3TusOpts,
  extra: Partial<UploadOptions> = {},
  stopAt?: number,
  input: File = file,
) {
  const b3 = blake3Tus({ createWorker, ...opts });
  let upload!: Upload;
  const done = new Promise<Outcome>((resolve) => {
    upload = new Upload(input, {
      endpoint,
      chunkSize: CHUNK,
      retryDelays: [0, 10, 10],
      ...b3.options,
      ...extra,
      onProgress(sent) {
        if (stopAt !== undefined && sent >= stopAt)
          void upload.abort().then(() => resolve({ ok: false, url: upload.url }));
      },
      onSuccess: ({ lastResponse }) =>
        resolve({ ok: true, verified: lastResponse.getHeader(VERIFIED_HEADER), url: upload.url }),
      onError: (error) => resolve({ ok: false, error: error as Outcome['error'], url: upload.url }),
    } as UploadOptions);
  });
  upload.start();
  return { b3, done };
}

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

    it('resumes after a reload from the saved checkpoint, reading again only the gap', async () => {
      const store = memoryStore();
      const first = await runUpload(server.endpoint, { checkpoints: store }, {}, 5 * CHUNK + 100).done;
      assert.equal(first.ok, false);
      const saved = [...store.map.values()][0] as Checkpoint;
      assert.ok(saved.offset > 0, 'a checkpoint was saved');
      const head = await fetch(first.url!, { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0' } });
      const serverOffset = Number(head.headers.get('Upload-Offset'));
      assert.ok(saved.offset <= serverOffset);
      const { b3, done } = runUpload(server.endpoint, { checkpoints: store }, { uploadUrl: first.url! });
      const out = await done;
      assert.equal(out.error, undefined);
      assert.equal(out.verified, ROOT);
      assert.equal(
        b3.bytesRead,
        SIZE - saved.offset,
        'one read of the rest, plus the gap from the checkpoint to the server offset',
      );
    });

    it('refuses a corrupt saved state with a CheckpointError', async () => {
      const store = memoryStore();
      const first = await runUpload(server.endpoint, { checkpoints: store }, {}, 3 * CHUNK).done;
      const [id, saved] = [...store.map.entries()][0] as [string, Checkpoint];
      store.map.set(id, { ...saved, cvs: saved.cvs.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')) });
      const out = await runUpload(server.endpoint, { checkpoints: store }, { uploadUrl: first.url!, retryDelays: [] })
        .done;
      assert.ok(out.error instanceof CheckpointError, String(out.error));
      assert.equal(out.error.reason, 'corrupt');
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
