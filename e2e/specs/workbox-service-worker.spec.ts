// The demo's service worker with Blake3IntegrityPlugin, in a real browser: good blobs are cached
// and then served without the network; tampered blobs are neither cached nor served as OK.
import type { EnginePage } from '../../servers/engine-page.ts';
import { expect, test } from '../../servers/engine-test.ts';

async function openDemo(page: EnginePage): Promise<void> {
  await page.goto('/demo/dist/index.html');
  // The download button is enabled once the service worker controls the page.
  await page.waitForFunction(
    () => {
      const button = document.getElementById('download') as HTMLButtonElement | null;
      return (button && !button.disabled) || document.getElementById('download-status')?.dataset.state === 'error';
    },
    { timeout: 30_000 },
  );
  const status = await page.evaluate(() => document.getElementById('download-status')!.textContent);
  expect(status, 'the verified-download section started').toBe('');
}

test.describe('Blake3IntegrityPlugin in a service worker', () => {
  test.beforeEach(async ({ enginePage }) => openDemo(enginePage));

  test('a good blob is cached and then served from the cache; a tampered one is refused and not cached', async ({
    enginePage,
  }) => {
    const r = await enginePage.evaluate(async () => {
      const hex = (b: ArrayBuffer) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, '0')).join('');
      const { blake3 } = (await import('/packages/core/dist/index.js' as string)) as typeof import('@blake3-web/core');
      const list = (await (await fetch('./blobs/index.json')).json()) as { hex: string; size: number }[];
      const blob = list[list.length - 1];
      const url = new URL(`./blobs/${blob.hex}`, location.href).href;
      const first = await fetch(url);
      const firstHex = hex(blake3(new Uint8Array(await first.arrayBuffer())).buffer as ArrayBuffer);
      const cache = await caches.open('blake3-blobs');
      // The worker writes the cache after answering (in waitUntil): wait for the entry.
      let cached: string[] = [];
      for (let i = 0; i < 100 && !cached.includes(url); i++) {
        cached = (await cache.keys()).map((k) => k.url);
        if (!cached.includes(url)) await new Promise((res) => setTimeout(res, 50));
      }
      // The server refuses this request: only the cache can answer it.
      const second = await fetch(url, { headers: { 'x-blob-unavailable': '1' } });
      const secondHex = hex(blake3(new Uint8Array(await second.arrayBuffer())).buffer as ArrayBuffer);
      const tamperedUrl = `${url}?tamper=1`;
      const tampered = await fetch(tamperedUrl).then(
        async (res) =>
          `resolved ${res.status} ${res.type}, body ${await res.arrayBuffer().then(
            (b) => `${b.byteLength} bytes`,
            (e: Error) => e.name,
          )}`,
        (e: Error) => `rejected ${e.name}`,
      );
      await new Promise((res) => setTimeout(res, 300));
      const cachedAfter = (await cache.keys()).map((k) => k.url);
      // Had the tampered bytes been cached, this would be answered from the cache with a 200.
      const tamperedAgain = (await fetch(tamperedUrl, { headers: { 'x-blob-unavailable': '1' } })).status;
      return {
        expected: blob.hex,
        url,
        tamperedUrl,
        firstStatus: first.status,
        firstHex,
        cached,
        secondStatus: second.status,
        secondHex,
        tampered,
        cachedAfter,
        tamperedAgain,
      };
    });
    expect(r.firstStatus).toBe(200);
    expect(r.firstHex).toBe(r.expected);
    expect(r.cached).toContain(r.url);
    expect(r.secondStatus).toBe(200);
    expect(r.secondHex).toBe(r.expected);
    expect(r.tampered).toMatch(/^rejected TypeError/);
    expect(r.cachedAfter).not.toContain(r.tamperedUrl);
    expect(r.tamperedAgain).toBe(503);
  });

  test('a cache hit is used only as the content: entries written by page code are hashed first, wrong ones refused and removed; an entry the worker verified is answered from its memory, unread', async ({
    enginePage,
  }) => {
    const r = await enginePage.evaluate(async () => {
      const hex = (b: ArrayBuffer | Uint8Array) =>
        Array.from(new Uint8Array(b instanceof Uint8Array ? b : new Uint8Array(b)), (x) =>
          x.toString(16).padStart(2, '0'),
        ).join('');
      const { blake3 } = (await import('/packages/core/dist/index.js' as string)) as typeof import('@blake3-web/core');
      const mismatches: string[] = [];
      navigator.serviceWorker.addEventListener('message', (e: MessageEvent<{ type: string; url: string }>) => {
        if (e.data?.type === 'blake3-mismatch') mismatches.push(e.data.url);
      });
      const cache = await caches.open('blake3-blobs');
      const run = Math.random().toString(36).slice(2);
      const random = (n: number) => crypto.getRandomValues(new Uint8Array(n));
      const flip = (b: Uint8Array) => {
        const c = b.slice();
        c[c.length >> 1] ^= 1;
        return c;
      };
      const outcome = (res: Response) =>
        res.arrayBuffer().then(
          (b) => `${res.status} ${hex(blake3(new Uint8Array(b)))}`,
          (e: Error) => `${res.status} body ${e.name}`,
        );
      const get = (url: string, unavailable = false) =>
        fetch(url, unavailable ? { headers: { 'x-blob-unavailable': '1' } } : {}).then(
          outcome,
          (e: Error) => `rejected ${e.name}`,
        );
      const settle = () => new Promise((res) => setTimeout(res, 400));

      // Content the server does not have (it answers 404): only the cache can give its bytes.
      const own = random(50_000);
      const ownHex = hex(blake3(own));
      const ownUrl = new URL(`./blobs/${ownHex}?run=${run}`, location.href).href;
      await cache.put(ownUrl, new Response(own));
      const ownGot = await get(ownUrl);

      // Wrong bytes under another such digest.
      const wanted = random(50_000);
      const wrongUrl = new URL(`./blobs/${hex(blake3(wanted))}?run=${run}`, location.href).href;
      await cache.put(wrongUrl, new Response(flip(wanted)));
      const wrongGot = await get(wrongUrl);
      await settle();
      const wrongLeft = (await cache.match(wrongUrl)) !== undefined;

      // A blob the worker fetches, verifies and stores; then page code overwrites its entry,
      // copying every header the worker's entry has (any mark it could carry) onto wrong bytes.
      const list = (await (await fetch('./blobs/index.json')).json()) as { hex: string }[];
      const storedUrl = new URL(`./blobs/${list[0].hex}?run=${run}`, location.href).href;
      const storedFirst = await get(storedUrl);
      let stored: Response | undefined;
      for (let i = 0; i < 100 && !stored; i++) {
        stored = await cache.match(storedUrl);
        if (!stored) await new Promise((res) => setTimeout(res, 50));
      }
      const good = new Uint8Array(await stored!.arrayBuffer());
      await cache.put(storedUrl, new Response(flip(good), { headers: stored!.headers }));
      // The server refuses these requests: only the worker can answer them.
      const storedAgain = await get(storedUrl, true);
      // The forged mark under a digest the worker does not hold.
      const forged = random(50_000);
      const forgedUrl = new URL(`./blobs/${hex(blake3(forged))}?run=${run}`, location.href).href;
      await cache.put(forgedUrl, new Response(flip(forged), { headers: stored!.headers }));
      const forgedGot = await get(forgedUrl, true);
      await settle();
      const storedEntry = hex(blake3(new Uint8Array(await (await cache.match(storedUrl))!.arrayBuffer())));
      return {
        own: { expected: `200 ${ownHex}`, got: ownGot },
        wrong: { got: wrongGot, left: wrongLeft },
        stored: {
          expected: `200 ${list[0].hex}`,
          first: storedFirst,
          again: storedAgain,
          entry: storedEntry,
          flipped: hex(blake3(flip(good))),
        },
        forged: forgedGot,
        mismatches: mismatches
          .map((u) => (u === wrongUrl ? 'wrong' : u === forgedUrl ? 'forged' : u === storedUrl ? 'stored' : u))
          .sort(),
      };
    });
    // Right bytes page code wrote were hashed and used (the server has none to give).
    expect(r.own.got).toBe(r.own.expected);
    // Wrong bytes were refused, reported and removed; the strategy went to the server (404).
    expect(r.wrong.got).toMatch(/^404 /);
    expect(r.wrong.left).toBe(false);
    // The worker's verified body answered, though the entry under it now holds other bytes:
    // the entry was not read (reading it would have been a mismatch, reported, and a 503).
    expect(r.stored.first).toBe(r.stored.expected);
    expect(r.stored.again).toBe(r.stored.expected);
    expect(r.stored.entry).toBe(r.stored.flipped);
    // Headers copied from the worker's own entry make no difference.
    expect(r.forged).toMatch(/^503 /);
    expect(r.mismatches).toEqual(['forged', 'wrong']);
  });

  test('the demo shows a verified download, and the mismatch when tampered', async ({ enginePage }) => {
    const run = (tamper: boolean) =>
      enginePage.evaluate(async (t) => {
        (document.getElementById('tamper') as HTMLInputElement).checked = t;
        const status = document.getElementById('download-status')!;
        status.dataset.state = 'busy';
        (document.getElementById('download') as HTMLButtonElement).click();
        while (status.dataset.state === 'busy') await new Promise((r) => setTimeout(r, 20));
        return { state: status.dataset.state, text: status.textContent };
      }, tamper);
    expect(await run(false)).toMatchObject({
      state: 'ok',
      text: expect.stringMatching(/^verified: [\d.]+ [KMG]iB \([\d,]+ bytes\), BLAKE3 [0-9a-f]{64}$/),
    });
    expect(await run(true)).toMatchObject({
      state: 'error',
      text: expect.stringMatching(/^refused: BLAKE3 mismatch, expected [0-9a-f]{64}, got [0-9a-f]{64}$/),
    });
  });

  test('a 206 for a blob is used only when it is the whole content and matches', async ({ enginePage }) => {
    const r = await enginePage.evaluate(async () => {
      const hex = (b: ArrayBuffer) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, '0')).join('');
      const { blake3 } = (await import('/packages/core/dist/index.js' as string)) as typeof import('@blake3-web/core');
      const list = (await (await fetch('./blobs/index.json')).json()) as { hex: string }[];
      const base = new URL(`./blobs/${list[0].hex}`, location.href).href;
      // The server answers a range with a 206; a fresh query per request keeps the cache out of it.
      const get = (query: string, range: string) =>
        fetch(`${base}?${query}`, { headers: { range } }).then(
          async (res) => `${res.status} ${hex(blake3(new Uint8Array(await res.arrayBuffer())).buffer as ArrayBuffer)}`,
          (e: Error) => `rejected ${e.name}`,
        );
      return {
        expected: list[0].hex,
        whole: await get('case=whole', 'bytes=0-'),
        tamperedWhole: await get('case=tampered&tamper=1', 'bytes=0-'),
        part: await get('case=part', 'bytes=0-99'),
      };
    });
    expect(r.whole).toBe(`206 ${r.expected}`);
    expect(r.tamperedWhole).toMatch(/^rejected TypeError/);
    // Part of the content cannot be checked against the digest of the whole (Bao ranges can).
    expect(r.part).toMatch(/^rejected TypeError/);
  });

  for (const [prefix, cacheName] of [
    ['stale-while-revalidate', 'blake3-blobs-swr'],
    ['network-first', 'blake3-blobs-nf'],
  ] as const) {
    test(`with ${prefix}: good blobs are used and cached, tampered ones neither`, async ({ enginePage }) => {
      const r = await enginePage.evaluate(
        async ({ prefix, cacheName }) => {
          const hex = (b: ArrayBuffer) =>
            Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, '0')).join('');
          const { blake3 } = (await import(
            '/packages/core/dist/index.js' as string
          )) as typeof import('@blake3-web/core');
          const list = (await (await fetch('./blobs/index.json')).json()) as { hex: string }[];
          const url = new URL(`./${prefix}/blobs/${list[0].hex}`, location.href).href;
          const good = await fetch(url);
          const goodHex = hex(blake3(new Uint8Array(await good.arrayBuffer())).buffer as ArrayBuffer);
          const cache = await caches.open(cacheName);
          let cached: string[] = [];
          for (let i = 0; i < 100 && !cached.includes(url); i++) {
            cached = (await cache.keys()).map((k) => k.url);
            if (!cached.includes(url)) await new Promise((res) => setTimeout(res, 50));
          }
          const tamperedUrl = `${url}?tamper=1`;
          const tampered = await fetch(tamperedUrl).then(
            (res) => `resolved ${res.status}`,
            (e: Error) => `rejected ${e.name}`,
          );
          await new Promise((res) => setTimeout(res, 300));
          const cachedAfter = (await cache.keys()).map((k) => k.url);
          return {
            expected: list[0].hex,
            url,
            tamperedUrl,
            status: good.status,
            goodHex,
            cached,
            tampered,
            cachedAfter,
          };
        },
        { prefix, cacheName },
      );
      expect(r.status).toBe(200);
      expect(r.goodHex).toBe(r.expected);
      expect(r.cached).toContain(r.url);
      expect(r.tampered).toMatch(/^rejected TypeError/);
      expect(r.cachedAfter).not.toContain(r.tamperedUrl);
    });
  }
});
