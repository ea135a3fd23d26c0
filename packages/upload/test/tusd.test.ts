// tus-js-client in Node, through the adapter, against tusd (the Go reference server, built by the
// test bootstrap) running this repository's pre-finish hook (go/tusd-blake3): an honest upload
// verifies, a byte changed in transit or on tusd's disk is refused with the hook's 460 and never
// its computed hash, a dropped or resumed upload verifies, and bad roots are refused.
import { blake3, bytesToHex } from '@blake3-web/core';
import { oracle, Random } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Upload, type UploadOptions } from 'tus-js-client';
import { startTusd, type Tusd } from '../../../go/tusd-blake3/setup/tusd.mjs';
import { ROOT_HEADER, type Blake3TusOpts } from '../src/index.ts';
import { VERIFIED_HEADER } from '../src/tus-server.ts';
import { blobBodyStack, inThreadHashers, memoryStore } from './_in-thread.ts';
import { discards, uploadThroughAdapter, type Outcome } from './_tus-client.ts';

const CHUNK = 64 * 1024;
const SIZE = 1_000_000 + 123;
const data = new Random(34).bytes(SIZE);
const file = new File([data], 'data.bin', { lastModified: 1 });
const [ROOT] = oracle([{ data, length: 32 }]);
/** The start of tusd's refusal body: its own error format, with the hook's code. */
const REFUSAL = /^ERR_BLAKE3_VERIFICATION_FAILED: BLAKE3 verification failed: /;

const { createWorker, closeAll } = inThreadHashers();

/** What tusd answered: the outcome, and the status and body of a refusal. */
type Answer = Outcome & { status?: number; body?: string };

function runUpload(
  endpoint: string,
  opts: Blake3TusOpts,
  extra?: Partial<UploadOptions>,
  stopAt?: number,
  input = file,
) {
  const { b3, done } = uploadThroughAdapter(endpoint, input, { createWorker, ...opts }, extra, stopAt);
  const answered = done.then((out): Answer => {
    const res = out.error?.originalResponse;
    return res ? { ...out, status: res.getStatus(), body: res.getBody() } : out;
  });
  return { b3, done: answered };
}

/** tusd's offset of the upload at `url`, or its status when it has none (404: gone). */
async function head(url: string): Promise<number | { status: number }> {
  const res = await fetch(url, { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0' } });
  return res.ok ? Number(res.headers.get('Upload-Offset')) : { status: res.status };
}

const idOf = (url: string) => url.split('/').at(-1)!;

/** Asserts tusd's refusal: 460, the hook's reason, no computed hash, the upload gone. */
async function assertRefused(tusd: Tusd, out: Answer, why: RegExp, computed: string[]): Promise<void> {
  assert.equal(out.ok, false);
  assert.equal(out.status, 460);
  assert.match(out.body ?? '', REFUSAL);
  assert.match(out.body ?? '', why);
  for (const hash of computed) assert.ok(!out.body!.includes(hash), 'the refusal does not disclose the computed hash');
  assert.deepEqual(await head(out.url!), { status: 404 }, 'the refused upload is gone');
  assert.ok(!existsSync(join(tusd.directory, idOf(out.url!))), 'its bytes are not kept');
  assert.ok(!existsSync(join(tusd.directory, `${idOf(out.url!)}.info`)));
}

for (const readInWorker of [false, true])
  describe(`tus-js-client through the adapter (${readInWorker ? 'the worker reads' : 'the adapter reads'}) to tusd with the BLAKE3 hook`, () => {
    let tusd: Tusd;
    const run = (opts: Blake3TusOpts, extra: Partial<UploadOptions> = {}, stopAt?: number, input?: File) =>
      runUpload(
        tusd.endpoint,
        { readInWorker, ...opts },
        readInWorker ? { httpStack: blobBodyStack(), ...extra } : extra,
        stopAt,
        input,
      );
    before(async () => {
      tusd = await startTusd();
    });
    after(async () => {
      closeAll();
      await tusd.close();
    });

    it('an honest upload is accepted, tusd answering with the root the official implementation gives', async () => {
      const { b3, done } = run({ checkpoints: null });
      const out = await done;
      assert.equal(out.ok, true, out.body);
      assert.equal(out.verified, ROOT);
      assert.equal(bytesToHex(await b3.root), ROOT);
      assert.deepEqual(readFileSync(join(tusd.directory, idOf(out.url!))), Buffer.from(data), 'tusd keeps the bytes');
    });

    it('the empty file: verified when the upload is created', async () => {
      const out = await run({ checkpoints: null }, {}, undefined, new File([], 'empty.bin')).done;
      assert.equal(out.ok, true, out.body);
      assert.equal(out.verified, bytesToHex(blake3(new Uint8Array(0))));
    });

    it('a byte changed in transit: refused with 460, without the computed hash, and removed', async () => {
      tusd.faults.flipAt = 777_777;
      try {
        const out = await run({ checkpoints: null }).done;
        const tampered = Uint8Array.from(data);
        tampered[777_777] ^= 1;
        await assertRefused(
          tusd,
          out,
          /the bytes stored do not have the root the client sent; the upload was discarded/,
          [bytesToHex(blake3(tampered))],
        );
      } finally {
        tusd.faults.flipAt = undefined;
      }
    });

    it('a connection dropped mid-request: tus resumes from the offset tusd kept and the upload is accepted', async () => {
      const drops = tusd.drops;
      tusd.faults.dropAfter = 40_000;
      const out = await run({ checkpoints: null }).done;
      assert.equal(tusd.drops, drops + 1);
      assert.equal(out.ok, true, out.body);
      assert.equal(out.verified, ROOT);
    });

    it('an upload stopped and resumed later (checked against its checkpoint) is accepted', async () => {
      const store = memoryStore();
      const first = await run({ checkpoints: store }, {}, 5 * CHUNK + 100).done;
      assert.equal(first.ok, false);
      const held = await head(first.url!);
      assert.ok(typeof held === 'number' && held > 0);
      const { seen, onDiscard } = discards();
      const out = await run({ checkpoints: store, onDiscard }, { uploadUrl: first.url! }).done;
      assert.equal(out.ok, true, out.body);
      assert.equal(out.verified, ROOT);
      assert.equal(out.url, first.url, 'the same upload went on');
      assert.deepEqual(seen(), []);
    });

    it("a byte changed on tusd's disk between two requests: the hook refuses the stored bytes, and the adapter's fresh upload is accepted", async () => {
      const first = await run({ checkpoints: null }, {}, 5 * CHUNK + 100).done;
      const path = join(tusd.directory, idOf(first.url!));
      const stored = readFileSync(path);
      stored[1000] ^= 0x80;
      writeFileSync(path, stored);
      const { seen, onDiscard } = discards();
      const out = await run({ checkpoints: null, onDiscard }, { uploadUrl: first.url! }).done;
      assert.equal(out.ok, true, out.body);
      assert.equal(out.verified, ROOT);
      assert.notEqual(out.url, first.url, 'a fresh upload took its place');
      assert.deepEqual(seen(), [['refused', first.url, true]]);
      assert.deepEqual(await head(first.url!), { status: 404 });
    });
  });

describe('tusd with the BLAKE3 hook in keyed and derive_key modes', () => {
  const key = new Random(5).bytes(32);
  const context = 'blake3-web tusd test 2026-11-28 uploads';
  for (const [name, env, opts] of [
    ['keyed', { TUSD_BLAKE3_KEY: bytesToHex(key) }, { key }],
    ['derive_key', { TUSD_BLAKE3_CONTEXT: context }, { context }],
  ] as const)
    it(`${name}: the client's root in the same mode is accepted, the plain hash refused without the tag`, async () => {
      const tusd = await startTusd({ env });
      try {
        const [tag] = oracle([{ data, length: 32, ...opts }]);
        const out = await runUpload(tusd.endpoint, { checkpoints: null, ...opts }).done;
        assert.equal(out.ok, true, out.body);
        assert.equal(out.verified, tag);
        const plain = await runUpload(tusd.endpoint, { checkpoints: null }).done;
        await assertRefused(tusd, plain, /do not have the root the client sent/, [tag]);
      } finally {
        closeAll();
        await tusd.close();
      }
    });
});

/** One upload of `body` in a single PATCH sent with `root` as the Upload-Blake3 values (none, one, several). */
async function patchWith(tusd: Tusd, body: Uint8Array, root: string[]): Promise<Answer> {
  const created = await fetch(tusd.endpoint, {
    method: 'POST',
    headers: { 'Tus-Resumable': '1.0.0', 'Upload-Length': String(body.length) },
  });
  assert.equal(created.status, 201);
  const url = new URL(created.headers.get('Location')!, tusd.endpoint).href;
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'PATCH',
      headers: {
        'Tus-Resumable': '1.0.0',
        'Upload-Offset': '0',
        'Content-Type': 'application/offset+octet-stream',
        'Content-Length': String(body.length),
      },
    });
    // An array sends the header once per value, as a client repeating it would.
    if (root.length > 0) req.setHeader(ROOT_HEADER, root);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () =>
        resolve({
          ok: res.statusCode! < 300,
          status: res.statusCode,
          body: text,
          verified: res.headers[VERIFIED_HEADER.toLowerCase()] as string | undefined,
          url,
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('tusd with the BLAKE3 hook: roots that cannot be checked are refused (fail closed)', () => {
  let tusd: Tusd;
  before(async () => {
    tusd = await startTusd();
  });
  after(() => tusd.close());
  const body = data.subarray(0, 70_000);
  const root = bytesToHex(blake3(body));

  it('the root in one header: accepted', async () => {
    const out = await patchWith(tusd, body, [root]);
    assert.equal(out.status, 204, out.body);
    assert.equal(out.verified, root);
  });

  for (const [name, sent, why] of [
    ['missing', [], /the request carried no Upload-Blake3 header/],
    ['short', [root.slice(0, 62)], /Upload-Blake3 must be 64 lowercase hex digits/],
    ['upper-case', [root.toUpperCase()], /Upload-Blake3 must be 64 lowercase hex digits/],
    ['repeated', [root, root], /Upload-Blake3 was sent more than once/],
    ['two roots in one header', [`${root}, ${root}`], /Upload-Blake3 must be 64 lowercase hex digits/],
  ] as const)
    it(`${name}: refused with 460 and removed`, async () => {
      const out = await patchWith(tusd, body, [...sent]);
      await assertRefused(tusd, out, why, [root]);
    });

  it('tus-js-client without the adapter (no root at all): refused', async () => {
    const out = await new Promise<Answer>((resolve) => {
      const upload = new Upload(Buffer.from(body), {
        endpoint: tusd.endpoint,
        chunkSize: CHUNK,
        retryDelays: [],
        onSuccess: () => resolve({ ok: true, url: upload.url }),
        onError: (e) => {
          const res = (e as { originalResponse?: { getStatus(): number; getBody(): string } | null }).originalResponse;
          resolve({ ok: false, status: res?.getStatus(), body: res?.getBody(), url: upload.url });
        },
      });
      upload.start();
    });
    await assertRefused(tusd, out, /carried no Upload-Blake3 header/, [root]);
  });
});
