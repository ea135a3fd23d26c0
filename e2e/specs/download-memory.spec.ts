// A download holds at most its ranges in flight: the page's JavaScript memory (V8's heap and the
// ArrayBuffers it owns, after a collection, through the Chrome DevTools Protocol) stays within
// concurrency x rangeSize + 16 MiB whatever the content's size, into a store that drops the bytes
// (the engine alone) and into OPFS (the page and the store's worker).
import { paint } from '@blake3-web/testkit';
import { baoEncode } from '@blake3-web/stream';
import type { CDPSession, Page } from '@playwright/test';

import { expect, skipWebKit, test } from '../../servers/engine-test.ts';
import { startRangeSources, type RangeSources } from '../../servers/range-sources.ts';

const MiB = 1024 * 1024;
const SIZE = 256 * MiB;
const CONCURRENCY = 4;
const RANGE = 256 * 1024;
const BOUND = CONCURRENCY * RANGE + 16 * MiB;

type Usage = { usedSize: number; backingStorageSize?: number };

/** JavaScript bytes a target holds after a full collection: V8's heap and its ArrayBuffers. */
async function held(send: (method: string, params?: object) => Promise<unknown>): Promise<number> {
  await send('HeapProfiler.enable');
  await send('HeapProfiler.collectGarbage');
  const usage = (await send('Runtime.getHeapUsage')) as Usage;
  return usage.usedSize + (usage.backingStorageSize ?? 0);
}

/** The page's and its dedicated workers' held bytes (workers reached through Target, unflattened). */
async function heldByPageAndWorkers(cdp: CDPSession, workers: Map<string, string>): Promise<number> {
  let total = await held((m, p) => cdp.send(m as never, p as never));
  for (const sessionId of workers.values()) {
    total += await held((method, params) => workerCall(cdp, sessionId, method, params));
  }
  return total;
}

let nextId = 1;
const replies = new Map<number, (r: { result?: unknown; error?: { message: string } }) => void>();
function workerCall(cdp: CDPSession, sessionId: string, method: string, params?: object): Promise<unknown> {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    replies.set(id, (r) => (r.error ? reject(new Error(`${method}: ${r.error.message}`)) : resolve(r.result)));
    void cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) });
  });
}

async function watchWorkers(cdp: CDPSession): Promise<Map<string, string>> {
  const workers = new Map<string, string>();
  cdp.on('Target.attachedToTarget', (e) => {
    if (e.targetInfo.type === 'worker') workers.set(e.targetInfo.targetId, e.sessionId);
  });
  cdp.on('Target.detachedFromTarget', (e) => {
    for (const [id, s] of workers) if (s === e.sessionId) workers.delete(id);
  });
  cdp.on('Target.receivedMessageFromTarget', (e) => {
    const reply = JSON.parse(e.message) as { id?: number };
    if (reply.id !== undefined) replies.get(reply.id)?.(reply as never);
    if (reply.id !== undefined) replies.delete(reply.id);
  });
  await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: false });
  return workers;
}

let sources: RangeSources | undefined;
test.afterEach(async () => {
  await sources?.close();
  sources = undefined;
});

test.describe('memory of a large download', () => {
  skipWebKit('the heap is read through the Chrome DevTools Protocol');
  test.skip(({ engine }) => engine !== 'chromium', 'the heap is read through the Chrome DevTools Protocol');
  test.setTimeout(600_000);

  const content = paint(SIZE);
  const { hash, encoded } = baoEncode(content, { outboard: true, chunkGroupLog: 4 });
  const root = Buffer.from(hash).toString('hex');

  for (const store of ['discard', 'opfs'] as const) {
    test(`${SIZE / MiB} MiB into ${store === 'discard' ? 'a store that drops the bytes' : 'OPFS'}: within concurrency x rangeSize + 16 MiB`, async ({
      enginePage,
      browser,
    }) => {
      void enginePage; // this test needs a CDP session of its own page
      sources = await startRangeSources(new Map([['f.bin', { content, outboard: encoded }]]), 2);
      const context = await browser.newContext();
      const page: Page = await context.newPage();
      try {
        await page.goto(new URL('/servers/pages/download.html', process.env.BLAKE3_E2E_URL).href);
        await page.waitForFunction(() => globalThis.blake3Download !== undefined);
        const cdp = await context.newCDPSession(page);
        const workers = await watchWorkers(cdp);
        const before = await heldByPageAndWorkers(cdp, workers);
        await page.evaluate(
          (o) => {
            (globalThis as { running?: Promise<{ bytes: number }> }).running = globalThis.blake3Download!.bench(o);
          },
          {
            variant: 'verified' as const,
            sources: sources.urls.map((u) => `${u}f.bin`),
            root,
            size: SIZE,
            concurrency: CONCURRENCY,
            rangeSize: RANGE,
            store,
          },
        );
        const served = () => sources!.counters.reduce((n, c) => n + c.contentBytes, 0);
        let peak = 0;
        // Measured three times while the download runs, the last near its end.
        for (const share of [0.3, 0.6, 0.9]) {
          while (served() < share * SIZE) await new Promise((r) => setTimeout(r, 20));
          peak = Math.max(peak, (await heldByPageAndWorkers(cdp, workers)) - before);
        }
        const out = await page.evaluate(() => (globalThis as { running?: Promise<{ bytes: number }> }).running!);
        // The OPFS store's worker was measured too (it starts with the download).
        expect(workers.size).toBe(store === 'opfs' ? 1 : 0);
        expect(out.bytes).toBe(SIZE);
        expect(served(), 'each byte fetched once').toBe(SIZE);
        expect(peak, `held ${(peak / MiB).toFixed(1)} MiB above the start`).toBeLessThanOrEqual(BOUND);
      } finally {
        await context.close();
      }
    });
  }
});
