// @blake3-web/upload in every engine against tusd (the Go reference server, built by the test
// bootstrap) running the BLAKE3 pre-finish hook of go/tusd-blake3, on 127.0.0.1: the page's
// tus-js-client uploads a painted File through the adapter, tusd refuses what its hook cannot
// match with 460 and never the computed hash, and bad roots sent from the page are refused.
import { blake3, bytesToHex } from '@blake3-web/core';
import { oracle, paint } from '@blake3-web/testkit';

import { startTusd, type Tusd } from '../../go/tusd-blake3/setup/tusd.mjs';
import type { EnginePage } from '../../servers/engine-page.ts';
import { expect, test } from '../../servers/engine-test.ts';

const MiB = 1024 * 1024;
const FILE = { size: 6 * MiB + 4321, chunkSize: 1 * MiB };
const [ROOT] = oracle([{ data: paint(FILE.size), length: 32 }]);
const REFUSAL = /^ERR_BLAKE3_VERIFICATION_FAILED: BLAKE3 verification failed: /;

async function openUploadPage(page: EnginePage): Promise<void> {
  await page.goto('/servers/pages/upload.html');
  await page.waitForFunction(() => globalThis.blake3Upload !== undefined || globalThis.blake3WebError !== undefined);
  const error = await page.evaluate(() => globalThis.blake3WebError ?? null);
  if (error !== null) throw new Error(`@blake3-web/upload failed to load in ${page.engine}: ${error}`);
}

const upload = (page: EnginePage, tusd: Tusd, name: string): Promise<UploadOutcome> =>
  page.evaluate((opts) => globalThis.blake3Upload!.run(opts), { endpoint: tusd.endpoint, name, ...FILE });

test.describe('uploads verified by tusd with the BLAKE3 hook', () => {
  let tusd: Tusd;
  test.beforeAll(async () => {
    tusd = await startTusd();
  });
  test.afterAll(() => tusd?.close());
  test.beforeEach(({ enginePage }) => openUploadPage(enginePage));

  test('an honest upload is accepted, with the root the official implementation gives', async ({
    enginePage,
  }, info) => {
    const out = await upload(enginePage, tusd, `honest-${info.project.name}.bin`);
    expect(out).toMatchObject({ ok: true, verified: ROOT, discards: [] });
    expect(out.bytesRead).toBe(FILE.size);
  });

  test('a byte changed in transit is refused with 460, without the computed hash', async ({ enginePage }, info) => {
    const at = 4 * MiB + 7;
    tusd.faults.flipAt = at;
    try {
      const out = await upload(enginePage, tusd, `tamper-${info.project.name}.bin`);
      const tampered = paint(FILE.size);
      tampered[at] ^= 1;
      expect(out).toMatchObject({ ok: false, status: 460 });
      expect(out.body).toMatch(REFUSAL);
      expect(out.body).toMatch(/the bytes stored do not have the root the client sent; the upload was discarded/);
      expect(out.body).not.toContain(bytesToHex(blake3(tampered)));
    } finally {
      tusd.faults.flipAt = undefined;
    }
  });

  test('a connection dropped mid-request resumes from what tusd kept and is accepted', async ({ enginePage }, info) => {
    const drops = tusd.drops;
    tusd.faults.dropAfter = 300_000;
    const out = await upload(enginePage, tusd, `drop-${info.project.name}.bin`);
    expect(tusd.drops).toBe(drops + 1);
    expect(out).toMatchObject({ ok: true, verified: ROOT });
  });

  test('roots the hook cannot use, sent from the page, are refused with 460', async ({ enginePage }) => {
    const size = 70_000;
    const root = bytesToHex(blake3(paint(size)));
    for (const [sent, why] of [
      [null, /the request carried no Upload-Blake3 header/],
      [root.slice(0, 62), /must be 64 lowercase hex digits/],
      [root.toUpperCase(), /must be 64 lowercase hex digits/],
      // A page cannot send a header twice: fetch joins the values into one.
      [[root, root], /must be 64 lowercase hex digits/],
      [root, null],
    ] as const) {
      const out = await enginePage.evaluate(
        async ({ endpoint, size, sent }) => {
          const body = new Uint8Array(size);
          for (let i = 0; i < size; i++) body[i] = i % 251;
          const created = await fetch(endpoint, {
            method: 'POST',
            headers: { 'Tus-Resumable': '1.0.0', 'Upload-Length': String(size) },
          });
          const url = new URL(created.headers.get('Location')!, endpoint).href;
          const headers = new Headers({
            'Tus-Resumable': '1.0.0',
            'Upload-Offset': '0',
            'Content-Type': 'application/offset+octet-stream',
          });
          for (const value of sent === null ? [] : typeof sent === 'string' ? [sent] : sent)
            headers.append('Upload-Blake3', value);
          const res = await fetch(url, { method: 'PATCH', headers, body });
          const after = await fetch(url, { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0' } });
          return {
            status: res.status,
            body: await res.text(),
            verified: res.headers.get('Upload-Blake3-Verified'),
            after: after.status,
          };
        },
        { endpoint: tusd.endpoint, size, sent: sent as string | string[] | null },
      );
      if (why === null) {
        expect(out).toMatchObject({ status: 204, verified: root, after: 200 });
        continue;
      }
      expect(out.status).toBe(460);
      expect(out.body).toMatch(REFUSAL);
      expect(out.body).toMatch(why);
      expect(out.body).not.toContain(root);
      expect(out.verified).toBeNull();
      expect(out.after, 'the refused upload is gone').toBe(404);
    }
  });
});
