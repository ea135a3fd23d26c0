// @blake3-web/upload in every engine, against the real @tus/server with the verifying store on
// 127.0.0.1: tus-js-client uploads a painted File through the adapter (64 MiB where the
// connection drops, 20 MiB elsewhere to keep the run short), the hash runs in the package's
// worker, and the server checks the root. Each test has its own server and file name,
// so no state (tus's URL storage, saved checkpoints) carries from one to the next.
import { oracle, paint } from '@blake3-web/testkit';

import { startTusServer, type TusTestServer } from '../../packages/upload/test/_tus-server.ts';
import type { EnginePage } from '../../servers/engine-page.ts';
import { expect, test } from '../../servers/engine-test.ts';

const MiB = 1024 * 1024;
const LARGE = { size: 64 * MiB + 4321, chunkSize: 8 * MiB };
const SMALL = { size: 20 * MiB + 4321, chunkSize: 4 * MiB };
/** Another file of the same name, size, type and date: the painted bytes, the first 64 KiB XOR 0x5a. */
const otherBytes = paint(SMALL.size).map((b, i) => (i < 65536 ? b ^ 0x5a : b));
const [LARGE_ROOT, SMALL_ROOT, OTHER_ROOT] = oracle(
  [paint(LARGE.size), paint(SMALL.size), otherBytes].map((data) => ({ data, length: 32 })),
);

async function openUploadPage(page: EnginePage): Promise<void> {
  await page.goto('/servers/pages/upload.html');
  await page.waitForFunction(() => globalThis.blake3Upload !== undefined || globalThis.blake3WebError !== undefined);
  const error = await page.evaluate(() => globalThis.blake3WebError ?? null);
  if (error !== null) throw new Error(`@blake3-web/upload failed to load in ${page.engine}: ${error}`);
}

function upload(
  page: EnginePage,
  server: TusTestServer,
  name: string,
  file = SMALL,
  other = false,
): Promise<UploadOutcome> {
  return page.evaluate((opts) => globalThis.blake3Upload!.run(opts), {
    endpoint: server.endpoint,
    name,
    ...file,
    other,
  });
}

/**
 * Starts an upload, and reloads the page once `bytes` of it are sent and a checkpoint at or past
 * `saved` is in IndexedDB (checkpoints are saved beside the requests, not before them). The
 * server takes what comes after the request that carries byte `bytes` slowly (seconds for the
 * rest of the file), so the upload is still under way when the reload lands, however fast the
 * machine; after the reload it is fast again.
 */
async function uploadThenReload(
  page: EnginePage,
  server: TusTestServer,
  name: string,
  bytes: number,
  saved: number,
): Promise<void> {
  server.faults.slowFrom = (Math.floor(bytes / SMALL.chunkSize) + 1) * SMALL.chunkSize;
  void upload(page, server, name).catch(() => undefined); // ends with the page
  await page.waitForFunction(
    new Function(`return globalThis.blake3Upload.state.progress >= ${bytes}`) as () => boolean,
    { timeout: 60_000 },
  );
  await expect
    .poll(() => page.evaluate(() => globalThis.blake3Upload!.savedCheckpoints().then((c) => c[0]?.offset ?? -1)), {
      timeout: 30_000,
      intervals: [20],
    })
    .toBeGreaterThanOrEqual(saved);
  await openUploadPage(page);
  server.faults.slowFrom = undefined;
}

test.describe("the hashing worker's errors", () => {
  test.beforeEach(async ({ enginePage }) => openUploadPage(enginePage));

  test('arrive as the class they were thrown as: TypeError, RangeError, CheckpointError with its reason', async ({
    enginePage,
  }) => {
    const r = await enginePage.evaluate(async () => {
      const { upload } = globalThis.blake3Upload!;
      const seen = (e: unknown) => ({
        name: (e as Error).name,
        message: (e as Error).message,
        isTypeError: e instanceof TypeError,
        isRangeError: e instanceof RangeError,
        isCheckpointError: e instanceof upload.CheckpointError,
        reason: (e as { reason?: string }).reason,
      });
      const failure = (p: Promise<unknown>) =>
        p.then(
          () => ({ name: 'resolved' }) as ReturnType<typeof seen>,
          (e: unknown) => seen(e),
        );
      const made = new upload.UploadHasher({ upload: 'u' });
      made.write(0, new Uint8Array(5 * 1024));
      const checkpoint = made.checkpoint();
      const out = {
        type: await failure(upload.WorkerHasher.open(upload.startHashWorker(), { key: 'a string' as never })),
        corrupt: await failure(
          upload.WorkerHasher.open(upload.startHashWorker(), { upload: 'u', checkpoint: { ...checkpoint, cvs: 'zz' } }),
        ),
        range: { name: '' } as ReturnType<typeof seen>,
        foreign: { name: '' } as ReturnType<typeof seen>,
        version: { name: '' } as ReturnType<typeof seen>,
        expecting: -1 as number | undefined,
      };
      const hasher = await upload.WorkerHasher.open(upload.startHashWorker());
      await hasher.write(0, new Uint8Array(1000));
      out.range = await failure(hasher.write(2000, new Uint8Array(10)));
      out.foreign = await failure(hasher.expectCheckpoint(checkpoint, 'v', 10_000));
      out.version = await failure(hasher.expectCheckpoint({ ...checkpoint, version: 2 }, 'u', 10_000));
      out.expecting = await hasher.expectCheckpoint(checkpoint, 'u', 10_000);
      hasher.close();
      return { ...out, offset: checkpoint.offset };
    });
    expect(r.type).toMatchObject({ name: 'TypeError', isTypeError: true, isCheckpointError: false });
    expect(r.range).toMatchObject({
      name: 'RangeError',
      isRangeError: true,
      message: expect.stringMatching(/offset must be at most 1000.*got 2000/),
    });
    expect(r.corrupt).toMatchObject({ name: 'CheckpointError', isCheckpointError: true, reason: 'corrupt' });
    expect(r.foreign).toMatchObject({
      name: 'CheckpointError',
      isCheckpointError: true,
      reason: 'foreign',
      message: expect.stringMatching(/belongs to upload "u"/),
    });
    expect(r.version).toMatchObject({ name: 'CheckpointError', isCheckpointError: true, reason: 'version' });
    expect(r.expecting, 'a good checkpoint is taken').toBe(r.offset);
  });
});

test.describe('upload while hashing, verified by the server', () => {
  let server: TusTestServer;
  test.beforeEach(async ({ enginePage }) => {
    server = await startTusServer();
    await openUploadPage(enginePage);
  });
  test.afterEach(() => server.close());

  test('a connection the server drops mid-request resumes, and the upload ends verified', async ({
    enginePage,
  }, info) => {
    server.faults.dropAfter = 3 * MiB;
    const out = await upload(enginePage, server, `drop-${info.project.name}.bin`, LARGE);
    expect(out).toMatchObject({ ok: true, verified: LARGE_ROOT });
    expect(server.drops).toBe(1);
    // One read of the file by the hashing worker: the retried request sends the file's own slice again.
    expect(out.bytesRead).toBe(LARGE.size);
  });

  test('a reload mid-upload resumes the same upload, checked against its checkpoint, and the root equals the reference', async ({
    enginePage,
  }, info) => {
    const name = `reload-${info.project.name}.bin`;
    await uploadThenReload(enginePage, server, name, 9 * MiB, 8 * MiB - 1024);
    const saved = await enginePage.evaluate(() => globalThis.blake3Upload!.savedCheckpoints());
    expect(saved.length).toBe(1);
    expect(saved[0].offset).toBeGreaterThanOrEqual(8 * MiB - 1024);
    const out = await upload(enginePage, server, name);
    expect(out).toMatchObject({ ok: true, verified: SMALL_ROOT });
    expect(await enginePage.evaluate(() => globalThis.blake3Upload!.state.resumed)).toBe(true);
    // The file is read once after the reload: up to the checkpoint to check it, to the server's
    // offset to hash what the server holds, and the rest as it is sent.
    expect(out.bytesRead).toBe(SMALL.size);
    expect(out.discards).toEqual([]);
    expect(await enginePage.evaluate(() => globalThis.blake3Upload!.savedCheckpoints())).toEqual([]);
  });

  test("another file of the same name, size, type and date after a reload: the other file's upload is left, a fresh one ends verified with this file's root", async ({
    enginePage,
  }, info) => {
    const name = `other-${info.project.name}.bin`;
    await uploadThenReload(enginePage, server, name, 9 * MiB, 8 * MiB - 1024);
    const out = await upload(enginePage, server, name, SMALL, true);
    expect(out).toMatchObject({
      ok: true,
      verified: OTHER_ROOT,
      discards: [{ reason: 'other-file', fresh: true }],
    });
    expect(await enginePage.evaluate(() => globalThis.blake3Upload!.state.resumed)).toBe(true);
    expect(await enginePage.evaluate(() => globalThis.blake3Upload!.savedCheckpoints())).toEqual([]);
  });

  test('an upload changed in transit is refused with 460 and not kept', async ({ enginePage }, info) => {
    server.faults.flipAt = 13 * MiB + 7;
    const out = await upload(enginePage, server, `tamper-${info.project.name}.bin`);
    expect(out).toMatchObject({ ok: false, status: 460 });
    expect(out.body).toMatch(/do not have the root the client sent/);
  });

  test('a corrupt saved checkpoint is deleted and said so, and the upload goes on to be verified', async ({
    enginePage,
  }, info) => {
    const name = `corrupt-${info.project.name}.bin`;
    await uploadThenReload(enginePage, server, name, 5 * MiB, 1);
    await enginePage.evaluate(() => globalThis.blake3Upload!.corruptCheckpoints());
    const out = await upload(enginePage, server, name);
    expect(out).toMatchObject({ ok: true, verified: SMALL_ROOT, discards: [{ reason: 'corrupt', fresh: false }] });
    expect(await enginePage.evaluate(() => globalThis.blake3Upload!.savedCheckpoints())).toEqual([]);
  });
});
