// @blake3-web/worker in every engine: the pool hashes painted multi-MB Blobs as blake3() does,
// reports progress, cancels, survives a killed worker, and errors cross the worker boundary with
// their names. The page loads the built package through an import map; the pool's workers run
// the package's self-contained dist/worker.bundle.js.
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { oracle, paint } from '@blake3-web/testkit';

import { fixtureUrl, type EnginePage } from '../../servers/engine-page.ts';
import { expect, skipWebKit, test } from '../../servers/engine-test.ts';

async function openWorkerPage(page: EnginePage): Promise<void> {
  await page.goto('/servers/pages/worker.html');
  await page.waitForFunction(() => globalThis.blake3WebWorker !== undefined || globalThis.blake3WebError !== undefined);
  const error = await page.evaluate(() => globalThis.blake3WebError ?? null);
  if (error !== null) throw new Error(`@blake3-web/worker failed to load in ${page.engine}: ${error}`);
}

test.describe('worker pool', () => {
  test.beforeEach(async ({ enginePage }) => openWorkerPage(enginePage));

  test('a painted 24 MiB Blob and File hash as blake3() does, on the default pool and on pools of 1-3', async ({
    enginePage,
  }) => {
    const results = await enginePage.evaluate(async () => {
      const { core, worker } = globalThis.blake3WebWorker!;
      const paint = (n: number, offset = 0) => {
        const out = new Uint8Array(n);
        for (let i = 0; i < n; i++) out[i] = (i + offset) % 251;
        return out;
      };
      const out: { label: string; ok: boolean }[] = [];
      const check = async (
        label: string,
        pool: { hashBlob(b: Blob, o?: object): Promise<Uint8Array> },
        data: Uint8Array,
        opts: object = {},
      ) => {
        const blob = new Blob([data as Uint8Array<ArrayBuffer>]);
        const got = core.bytesToHex(await pool.hashBlob(blob, opts));
        out.push({ label, ok: got === core.bytesToHex(core.blake3(data, opts)) });
      };
      const big = paint(24 * 1024 * 1024 + 12345);
      const defaultPool = worker.createPool();
      await check('default pool, 24 MiB + 12345', defaultPool, big);
      const file = new File([big as Uint8Array<ArrayBuffer>], 'big.bin');
      out.push({
        label: 'default pool, File',
        ok: core.bytesToHex(await defaultPool.hashBlob(file)) === core.bytesToHex(core.blake3(big)),
      });
      out.push({
        label: 'hashFile',
        ok:
          core.bytesToHex(await worker.hashFile(file, { dkLen: 64 })) ===
          core.bytesToHex(core.blake3(big, { dkLen: 64 })),
      });
      defaultPool.terminate();
      // One worker, default subtrees: 16 MiB tasks, each read as two 8 MiB pieces.
      const single = worker.createPool({ size: 1 });
      await check('pool of 1, default subtrees, 40 MiB + 3', single, paint(40 * 1024 * 1024 + 3, 7), {
        context: 'pieces',
      });
      single.terminate();
      const S = 64 * 1024;
      const modes = [{}, { key: paint(32, 9) }, { context: 'blake3-web e2e worker pool' }];
      for (const size of [1, 2, 3]) {
        const pool = worker.createPool({ size, subtreeBytes: S });
        for (const [i, total] of [0, 1000, S + 1, 2 * S, 8 * S - 1, 8 * S + 1024, 3 * 1024 * 1024 + 1].entries()) {
          const opts = { ...modes[(i + size) % 3], dkLen: [0, 1, 32, 131][i % 4] };
          await check(
            `pool of ${size}, ${total} bytes, ${JSON.stringify(Object.keys(opts))}`,
            pool,
            paint(total, i),
            opts,
          );
        }
        pool.terminate();
      }
      return out;
    });
    expect(results.length).toBe(25);
    for (const r of results) expect(r, r.label).toEqual({ label: r.label, ok: true });
  });

  test('progress only grows and ends at the total', async ({ enginePage }) => {
    const calls = await enginePage.evaluate(async () => {
      const { worker } = globalThis.blake3WebWorker!;
      const pool = worker.createPool({ size: 2, subtreeBytes: 256 * 1024 });
      const seen: number[][] = [];
      await pool.hashBlob(new Blob([new Uint8Array(10 * 1024 * 1024 + 7)]), {
        onProgress: (done, total) => void seen.push([done, total]),
      });
      pool.terminate();
      return seen;
    });
    expect(calls.length).toBe(41);
    for (const [i, [done, total]] of calls.entries()) {
      expect(total).toBe(10 * 1024 * 1024 + 7);
      if (i > 0) expect(done).toBeGreaterThan(calls[i - 1][0]);
    }
    expect(calls.at(-1)![0]).toBe(10 * 1024 * 1024 + 7);
  });

  test('abort mid-way rejects with the reason, and the pool still hashes', async ({ enginePage }) => {
    const r = await enginePage.evaluate(async () => {
      const { core, worker } = globalThis.blake3WebWorker!;
      const pool = worker.createPool({ size: 2, subtreeBytes: 256 * 1024 });
      const data = new Uint8Array(32 * 1024 * 1024).fill(5);
      const blob = new Blob([data]);
      const controller = new AbortController();
      let lastDone = 0;
      let outcome: { name: string; message: string };
      try {
        await pool.hashBlob(blob, {
          signal: controller.signal,
          onProgress: (done) => {
            lastDone = done;
            if (done >= 2 * 1024 * 1024) controller.abort(new DOMException('user cancelled', 'AbortError'));
          },
        });
        outcome = { name: 'resolved', message: '' };
      } catch (e) {
        outcome = { name: (e as Error).name, message: (e as Error).message };
      }
      let preAborted = '';
      await pool
        .hashBlob(blob, { signal: AbortSignal.abort(new TypeError('never started')) })
        .catch((e: Error) => void (preAborted = `${e.name}: ${e.message}`));
      const after = core.bytesToHex(await pool.hashBlob(blob)) === core.bytesToHex(core.blake3(data));
      pool.terminate();
      return { outcome, stoppedEarly: lastDone < data.length, preAborted, after };
    });
    expect(r).toEqual({
      outcome: { name: 'AbortError', message: 'user cancelled' },
      stoppedEarly: true,
      preAborted: 'TypeError: never started',
      after: true,
    });
  });

  test('an error thrown in a worker crosses comlink with its name, message and stack', async ({ enginePage }) => {
    const r = await enginePage.evaluate(async () => {
      const { comlink, workerUrl } = globalThis.blake3WebWorker!;
      const w = new Worker(workerUrl, { type: 'module' });
      type Api = { hashRange(task: object): Promise<Uint8Array> };
      const api = comlink.wrap<Api>(w);
      const blob = new Blob([new Uint8Array(5000)]);
      const attempt = async (task: object) => {
        try {
          await api.hashRange(task);
          return { name: 'resolved' };
        } catch (e) {
          const err = e as Error & { errorClass?: string };
          return {
            name: err.name,
            message: err.message,
            errorClass: err.errorClass,
            stackFromWorker: /hashRange|aRange/.test(err.stack ?? ''),
          };
        }
      };
      const out = {
        // Blob.slice would clamp this range; the worker refuses it.
        range: await attempt({
          source: { kind: 'blob', blob, size: blob.size },
          start: 4096,
          end: 5001,
          output: 'subtree',
          opts: {},
        }),
        kind: await attempt({ source: { kind: 'socket' }, start: 0, end: 1, output: 'subtree', opts: {} }),
        key: await attempt({
          source: { kind: 'blob', blob, size: blob.size },
          start: 0,
          end: 5000,
          output: 'root',
          opts: { key: new Uint8Array(31) },
        }),
        paths: await attempt({
          source: { kind: 'file', file: { path: '/etc/hosts', size: 10, mtimeNs: 0n, dev: 0n, ino: 0n } },
          start: 0,
          end: 10,
          output: 'subtree',
          opts: {},
        }),
      };
      w.terminate();
      return out;
    });
    expect(r.range).toEqual({
      name: 'RangeError',
      message: expect.stringMatching(/within the 5000-byte input/),
      errorClass: 'RangeError',
      stackFromWorker: true,
    });
    expect(r.kind).toMatchObject({
      name: 'TypeError',
      message: expect.stringMatching(/task.source.kind/),
      errorClass: 'TypeError',
    });
    expect(r.key).toMatchObject({
      name: 'RangeError',
      message: expect.stringMatching(/key must be 32 bytes/),
      errorClass: 'RangeError',
    });
    expect(r.paths).toMatchObject({
      name: 'TypeError',
      message: expect.stringMatching(/paths are read only in Node/),
      errorClass: 'TypeError',
    });
  });

  test('through the handle every caller uses, errors arrive as the class they were thrown as', async ({
    enginePage,
  }) => {
    const r = await enginePage.evaluate(async () => {
      const { workerUrl, internals } = globalThis.blake3WebWorker!;
      type Api = { hashRange(task: object): Promise<Uint8Array>; ping(): 'pong' };
      const handle = new internals.WorkerHandle<Api, Worker>(new Worker(workerUrl, { type: 'module' }), {
        adapt: (w, onDeath) => internals.webWorkerPort(w, onDeath),
        livenessMs: 30_000,
      });
      const blob = new Blob([new Uint8Array(5000)]);
      const attempt = async (task: object) => {
        try {
          await handle.call((w) => w.hashRange(task));
          return { resolved: true };
        } catch (e) {
          const err = e as Error;
          return {
            name: err.name,
            message: err.message,
            isTypeError: e instanceof TypeError,
            isRangeError: e instanceof RangeError,
            isDomException: typeof DOMException !== 'undefined' && e instanceof DOMException,
            stackFromWorker: /hashRange|aRange|openTaskReader/.test(err.stack ?? ''),
          };
        }
      };
      const out = {
        range: await attempt({
          source: { kind: 'blob', blob, size: 5000 },
          start: 4096,
          end: 5001,
          output: 'subtree',
          opts: {},
        }),
        kind: await attempt({ source: { kind: 'socket' }, start: 0, end: 1, output: 'subtree', opts: {} }),
        // A Blob whose size is not the one the task was planned for: the worker refuses to read it.
        resized: await attempt({
          source: { kind: 'blob', blob, size: 6000 },
          start: 0,
          end: 6000,
          output: 'root',
          opts: {},
        }),
        answers: (await handle.call((w) => w.ping())) === 'pong',
      };
      handle.terminate();
      return out;
    });
    expect(r.range).toEqual({
      name: 'RangeError',
      message: expect.stringMatching(/within the 5000-byte input/),
      isTypeError: false,
      isRangeError: true,
      isDomException: false,
      stackFromWorker: true,
    });
    expect(r.kind).toMatchObject({ name: 'TypeError', isTypeError: true, isRangeError: false, isDomException: false });
    expect(r.resized).toMatchObject({
      name: 'NotReadableError',
      message: expect.stringMatching(/had 6000 bytes when the hash started and says 5000 now/),
      isDomException: true,
      isTypeError: false,
    });
    expect(r.answers, 'the worker goes on answering after calls that threw').toBe(true);
  });

  test('a worker terminated mid-call is noticed, replaced and its task retried: the hash is right', async ({
    enginePage,
  }) => {
    const r = await enginePage.evaluate(async () => {
      const { core, workerUrl, internals } = globalThis.blake3WebWorker!;
      const workers: Worker[] = [];
      const createWorker = () => {
        const w = new Worker(workerUrl, { type: 'module' });
        workers.push(w);
        return w;
      };
      // Browsers report nothing when a worker is terminated: the liveness probe (short here) finds it.
      const pool = internals.createPoolOn(
        internals.browserPlatform,
        { size: 2, subtreeBytes: 256 * 1024, createWorker },
        { livenessMs: 300 },
      );
      const data = new Uint8Array(16 * 1024 * 1024 + 3).map((_, i) => i % 251);
      let killed = false;
      const hex = core.bytesToHex(
        await pool.hashBlob(new Blob([data]), {
          onProgress: (done) => {
            if (!killed && done >= 1024 * 1024) {
              killed = true;
              workers[0].terminate();
            }
          },
        }),
      );
      const again = core.bytesToHex(await pool.hashBlob(new Blob([data])));
      pool.terminate();
      const expected = core.bytesToHex(core.blake3(data));
      return { right: hex === expected, againRight: again === expected, workersStarted: workers.length };
    });
    expect(r).toEqual({ right: true, againRight: true, workersStarted: 3 });
  });

  test('a worker answers the liveness probe while a long task runs, whether its reads wait or not', async ({
    enginePage,
  }) => {
    const r = await enginePage.evaluate(async () => {
      const { core, comlink, workerUrl } = globalThis.blake3WebWorker!;
      const w = new Worker(workerUrl, { type: 'module' });
      type Api = { hashRange(task: object): Promise<Uint8Array>; ping(): Promise<string> };
      const api = comlink.wrap<Api>(w);
      await api.ping();
      const data = new Uint8Array(64 * 1024 * 1024);
      for (let i = 0; i < data.length; i++) data[i] = i % 251;
      const expected = core.bytesToHex(core.blake3(data));
      // Probes sent one after another while the task runs; those answered before it ends count.
      const probed = async (source: object) => {
        let done = false;
        const hashing = api
          .hashRange({ source, start: 0, end: data.length, output: 'root', opts: {} })
          .then((hash) => ((done = true), core.bytesToHex(hash)));
        let answered = 0;
        while (!done) {
          await Promise.race([api.ping(), hashing]);
          if (!done) answered++;
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        return { right: (await hashing) === expected, answered: answered > 0 };
      };
      const out = {
        // Bytes in memory: reading them never waits, so only the task's own turns let a probe in.
        bytes: await probed({ kind: 'bytes', bytes: data }),
        blob: await probed({ kind: 'blob', blob: new Blob([data]), size: data.length }),
      };
      w.terminate();
      return out;
    });
    expect(r).toEqual({ bytes: { right: true, answered: true }, blob: { right: true, answered: true } });
  });

  test('terminate() rejects pending hashes with AbortError, later ones with InvalidStateError', async ({
    enginePage,
  }) => {
    const r = await enginePage.evaluate(async () => {
      const { worker } = globalThis.blake3WebWorker!;
      const pool = worker.createPool({ size: 2 });
      const pending = pool.hashBlob(new Blob([new Uint8Array(64 * 1024 * 1024)])).then(
        () => 'resolved',
        (e: Error) => e.name,
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      pool.terminate();
      const later = await pool.hashBlob(new Blob([new Uint8Array(10)])).then(
        () => 'resolved',
        (e: Error) => e.name,
      );
      return { pending: await pending, later };
    });
    expect(r).toEqual({ pending: 'AbortError', later: 'InvalidStateError' });
  });

  test('bad arguments are TypeError or RangeError naming the argument', async ({ enginePage }) => {
    const r = await enginePage.evaluate(async () => {
      const { worker } = globalThis.blake3WebWorker!;
      const describe = (f: () => unknown) => {
        try {
          f();
          return 'returned';
        } catch (e) {
          return `${(e as Error).name}: ${(e as Error).message}`;
        }
      };
      const rejection = (p: Promise<unknown>) =>
        p.then(
          () => 'resolved',
          (e: Error) => `${e.name}: ${e.message}`,
        );
      const pool = worker.createPool({ size: 1 });
      const blob = new Blob(['abc']);
      const out = {
        size: describe(() => worker.createPool({ size: 0 })),
        subtree: describe(() => worker.createPool({ subtreeBytes: 1000 })),
        blob: await rejection(pool.hashBlob('abc' as never)),
        path: await rejection(worker.hashFile('/etc/hosts')),
        key: await rejection(pool.hashBlob(blob, { key: new Uint8Array(16) })),
        signal: await rejection(pool.hashBlob(blob, { signal: 'stop' as never })),
      };
      pool.terminate();
      return out;
    });
    expect(r.size).toMatch(/^RangeError: opts\.size/);
    expect(r.subtree).toMatch(/^RangeError: opts\.subtreeBytes/);
    expect(r.blob).toMatch(/^TypeError: blob must be a Blob or File, got a string/);
    expect(r.path).toMatch(/^TypeError: .*paths .* are read only in Node/);
    expect(r.key).toMatch(/^RangeError: opts\.key must be 32 bytes/);
    expect(r.signal).toMatch(/^TypeError: opts\.signal must be an AbortSignal/);
  });
});

test.describe('worker pool: a File whose file changed on disk', () => {
  skipWebKit('setInputFiles');

  test('rejects with the read error the engine raises (NotReadableError), intact across the worker boundary', async ({
    page,
  }) => {
    const dir = await mkdtemp(join(tmpdir(), 'blake3-web-e2e-'));
    try {
      const path = join(dir, 'changing.bin');
      writeFileSync(path, new Uint8Array(8 * 1024 * 1024).fill(1));
      await page.goto(fixtureUrl('/servers/pages/worker.html'));
      await page.waitForFunction(
        () => globalThis.blake3WebWorker !== undefined || globalThis.blake3WebError !== undefined,
      );
      await page.setInputFiles('#file', path);
      // Asking the File its size takes its snapshot (Chromium takes it lazily); once the file
      // behind it changes, engines refuse to read it, or (Firefox) read it short.
      expect(await page.evaluate(() => (document.getElementById('file') as HTMLInputElement).files![0].size)).toBe(
        8 * 1024 * 1024,
      );
      writeFileSync(path, new Uint8Array(4 * 1024 * 1024).fill(2));
      const r = await page.evaluate(async () => {
        const { worker } = globalThis.blake3WebWorker!;
        const file = (document.getElementById('file') as HTMLInputElement).files![0];
        const pool = worker.createPool({ size: 2, subtreeBytes: 1024 * 1024 });
        try {
          const hash = await pool.hashBlob(file);
          return { resolved: hash.length };
        } catch (e) {
          return { name: (e as Error).name, isDomException: e instanceof DOMException, message: (e as Error).message };
        } finally {
          pool.terminate();
        }
      });
      expect(r).toMatchObject({ name: 'NotReadableError', isDomException: true });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

// Sizes around every boundary a reader has: empty, one byte, one chunk and one past it, the
// 1 MiB task and stream piece, and several tasks with a partial last one.
const MiB = 1024 * 1024;
const readerSizes = [0, 1, 1024, 1025, MiB - 1, MiB, MiB + 1, 3 * MiB - 1, 3 * MiB + 1, 6 * MiB + 777];
const officialHashes = () => oracle(readerSizes.map((n) => ({ data: paint(n, n), length: 32 })));

/** In the page: hashes painted inputs of each size on a pool of 2 with 1 MiB subtrees; which reader the engine gets. */
async function hashPaintedInPage({ sizes, fromFiles }: { sizes: number[]; fromFiles: boolean }) {
  const { core, worker } = globalThis.blake3WebWorker!;
  const inputs = fromFiles
    ? Array.from((document.getElementById('file') as HTMLInputElement).files!)
    : sizes.map((n) => {
        const data = new Uint8Array(n);
        for (let i = 0; i < n; i++) data[i] = (i + n) % 251;
        return new Blob([data]);
      });
  const pool = worker.createPool({ size: 2, subtreeBytes: 1024 * 1024 });
  try {
    const hexes: string[] = [];
    for (const blob of inputs) hexes.push(core.bytesToHex(await pool.hashBlob(blob)));
    let byteStreams: boolean;
    try {
      new Blob([]).stream().getReader({ mode: 'byob' }).releaseLock();
      byteStreams = true;
    } catch {
      byteStreams = false;
    }
    return { hexes, sizes: inputs.map((b) => b.size), byteStreams };
  } finally {
    pool.terminate();
  }
}

test.describe('worker pool: every reader gives the official hash', () => {
  test('in-memory Blobs around every task and piece boundary', async ({ enginePage }) => {
    await openWorkerPage(enginePage);
    const r = await enginePage.evaluate(hashPaintedInPage, { sizes: readerSizes, fromFiles: false });
    // Byte streams (Chromium, Firefox) are read with a BYOB reader, else by slices (WebKitGTK).
    expect(r.byteStreams).toBe(enginePage.engine !== 'webkit');
    expect(r.hexes).toEqual(officialHashes());
  });

  test.describe('Files from disk', () => {
    skipWebKit('setInputFiles');
    test('Files read from disk around every task and piece boundary', async ({ page }) => {
      const dir = await mkdtemp(join(tmpdir(), 'blake3-web-e2e-'));
      try {
        const paths = readerSizes.map((n) => {
          const path = join(dir, `painted-${n}.bin`);
          writeFileSync(path, paint(n, n));
          return path;
        });
        await page.goto(fixtureUrl('/servers/pages/worker.html'));
        await page.waitForFunction(() => globalThis.blake3WebWorker !== undefined);
        await page.evaluate(() => document.getElementById('file')!.setAttribute('multiple', ''));
        await page.setInputFiles('#file', paths);
        const r = await page.evaluate(hashPaintedInPage, { sizes: readerSizes, fromFiles: true });
        expect(r.sizes).toEqual(readerSizes);
        expect(r.hexes).toEqual(officialHashes());
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  });
});
