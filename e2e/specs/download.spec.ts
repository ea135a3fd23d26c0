// download() in every engine against mirrors on 127.0.0.1 (servers/range-sources.ts: each its
// own origin, counting the bytes it sends). With one honest mirror beside one that misbehaves
// in every way a range can, the result is the content; with none, a DownloadError that names
// what each did; a reload in the middle of a download resumes it, and the mirror then sends
// exactly the bytes the store lacked.
import { baoEncode } from '@blake3-web/stream';
import { paint, Random, testSeed } from '@blake3-web/testkit';

import type { EnginePage } from '../../servers/engine-page.ts';
import { expect, test } from '../../servers/engine-test.ts';
import { startRangeSources, type RangeFault, type RangeSources, type ServedFile } from '../../servers/range-sources.ts';

const KiB = 1024;
const FAULTS: readonly RangeFault[] = [
  'flip',
  'status-200',
  'status-416',
  'status-500',
  'wrong-range',
  'lie-range',
  'short',
  'long',
  'stall',
  'reset',
];

function served(size: number, salt: number): { file: ServedFile; root: string } {
  const content = paint(size).map((b) => b ^ salt);
  const { hash, encoded } = baoEncode(content, { outboard: true, chunkGroupLog: 4 });
  return { file: { content, outboard: encoded }, root: Buffer.from(hash).toString('hex') };
}

async function openDownloadPage(page: EnginePage): Promise<void> {
  await page.goto('/servers/pages/download.html');
  await page.waitForFunction(() => globalThis.blake3Download !== undefined || globalThis.blake3WebError !== undefined);
  const error = await page.evaluate(() => globalThis.blake3WebError ?? null);
  if (error !== null) throw new Error(`@blake3-web/download failed to load in ${page.engine}: ${error}`);
}

const run = (page: EnginePage, opts: DownloadRun) => page.evaluate((o) => globalThis.blake3Download!.run(o), opts);

/** Forgets what a store of this page holds of `root` (the default store persists across tests). */
const forget = (page: EnginePage, root: string) =>
  page.evaluate((r) => globalThis.blake3Download!.download.browserStore().remove(r), root);

let sources: RangeSources | undefined;
test.afterEach(async () => {
  await sources?.close();
  sources = undefined;
});

test('one honest mirror beside one that faults at random on every kind of range fault: the content', async ({
  enginePage: page,
}) => {
  const seed = testSeed() ^ 0xd0;
  const rng = new Random(seed);
  const size = 3 * 1024 * KiB + 12_345;
  const { file, root } = served(size, 0x11);
  sources = await startRangeSources(new Map([['f.bin', file]]), 2);
  // Every fault kind at least once, in a seeded order, then at random half the time.
  const order = FAULTS.slice().sort(() => rng.u32() - 2 ** 31);
  sources.setBehaviour(0, {
    fault: (n) => (n < order.length ? order[n] : rng.int(0, 1) ? rng.pick(FAULTS) : undefined),
  });
  await openDownloadPage(page);
  await forget(page, root);
  const outcome = await run(page, {
    sources: sources.urls.map((u) => `${u}f.bin`),
    root,
    size,
    salt: 0x11,
    rangeSize: 128 * KiB,
    concurrency: 4,
    stallTimeout: 1500,
    strategy: 'round-robin',
  });
  expect(outcome, `seed ${seed}`).toEqual({ ok: true, size, same: true });
  expect(sources.counters[0].faults, 'the faulty mirror was asked for ranges').toBeGreaterThan(0);
  await forget(page, root);
});

test('no honest mirror: a DownloadError naming what each one did, and nothing stored as done', async ({
  enginePage: page,
}) => {
  const size = 600 * KiB + 7;
  const { file, root } = served(size, 0x22);
  sources = await startRangeSources(new Map([['g.bin', file]]), 2);
  sources.setBehaviour(0, { fault: () => 'flip' });
  sources.setBehaviour(1, { fault: (n) => (n % 2 ? 'status-500' : 'short') });
  await openDownloadPage(page);
  await forget(page, root);
  const urls = sources.urls.map((u) => `${u}g.bin`);
  const outcome = await run(page, { sources: urls, root, size, salt: 0x22, rangeSize: 64 * KiB, stallTimeout: 1500 });
  expect(outcome.ok).toBe(false);
  if (outcome.ok) return;
  expect(outcome.name).toBe('DownloadError');
  expect(outcome.failures?.map((f) => f.url).sort()).toEqual(urls.slice().sort());
  for (const f of outcome.failures!) expect(f.faults, f.url).toBeGreaterThan(0);
  for (const url of urls) expect(outcome.message).toContain(url);
  const stored = await page.evaluate(
    async (r) => (await globalThis.blake3Download!.download.browserStore().list()).find((d) => d.root === r) ?? null,
    root,
  );
  expect(stored?.recordedBytes ?? 0).toBe(0);
  await forget(page, root);
});

test('a reload mid-download resumes it: the mirror then sends only the bytes the store lacked', async ({
  enginePage: page,
}) => {
  const size = 4 * 1024 * KiB + 3000;
  const { file, root } = served(size, 0x33);
  sources = await startRangeSources(new Map([['r.bin', file]]), 1);
  // Slow enough that the reload lands in the middle, whatever the engine's speed.
  sources.setBehaviour(0, { delayMs: 250 });
  await openDownloadPage(page);
  await forget(page, root);
  const opts = { sources: [`${sources.urls[0]}r.bin`], root, size, salt: 0x33, rangeSize: 256 * KiB, concurrency: 2 };
  void run(page, opts).catch(() => undefined); // ends with the page
  const counters = sources.counters[0];
  // Steps, so that a failure says which part took the time.
  await test.step('the first MiB arrives', () =>
    expect.poll(() => counters.contentBytes, { timeout: 60_000 }).toBeGreaterThanOrEqual(1024 * KiB));
  await test.step('the reload', () => openDownloadPage(page));

  const before = await test.step('the store lists the download', () =>
    page.evaluate(
      async (r) => (await globalThis.blake3Download!.download.browserStore().list()).find((d) => d.root === r) ?? null,
      root,
    ));
  expect(before, 'the download is in the store after the reload').not.toBeNull();
  expect(before!.recordedBytes).toBeGreaterThan(0);
  expect(before!.recordedBytes).toBeLessThan(size);
  sources.resetCounters();
  sources.setBehaviour(0, {});
  const outcome = await test.step('the download resumes', () => run(page, opts));
  expect(outcome).toEqual({ ok: true, size, same: true });
  expect(counters.contentBytes).toBe(size - before!.recordedBytes);
  await test.step('the stored download is removed', () => forget(page, root));
});

test('a mirror whose outboard is bad (its header, truncated, endless, another file’s, missing): the content from the other', async ({
  enginePage: page,
}) => {
  const size = 300 * KiB + 99;
  const { file, root } = served(size, 0x44);
  sources = await startRangeSources(new Map([['o.bin', file]]), 2);
  await openDownloadPage(page);
  for (const fault of ['bad-header', 'truncated', 'endless', 'other-file', 'status-404'] as const) {
    sources.setBehaviour(0, { outboard: fault });
    const outcome = await run(page, {
      sources: sources.urls.map((u) => `${u}o.bin`),
      root,
      size,
      salt: 0x44,
      memory: true,
      strategy: 'in-order',
    });
    expect(outcome, fault).toEqual({ ok: true, size, same: true });
  }
  // And with only that mirror: no outboard proves the root.
  sources.setBehaviour(0, { outboard: 'other-file' });
  const alone = await run(page, { sources: [`${sources.urls[0]}o.bin`], root, size, salt: 0x44, memory: true });
  expect(alone.ok === false && alone.name).toBe('DownloadError');
});

test('two downloads of one root at once in a page (the page’s own and a library’s fetch) share the default store', async ({
  enginePage: page,
}) => {
  const size = 900 * KiB + 5;
  const { file, root } = served(size, 0x55);
  sources = await startRangeSources(new Map([['t.bin', file]]), 1);
  await openDownloadPage(page);
  await forget(page, root);
  const outcomes = await page.evaluate(
    (o) => Promise.all([globalThis.blake3Download!.run(o), globalThis.blake3Download!.run(o)]),
    { sources: [`${sources.urls[0]}t.bin`], root, size, salt: 0x55, rangeSize: 64 * KiB },
  );
  expect(outcomes).toEqual([
    { ok: true, size, same: true },
    { ok: true, size, same: true },
  ]);
  await forget(page, root);
});
