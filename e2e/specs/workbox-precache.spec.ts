// Blake3IntegrityPlugin in workbox-precaching, in a real service worker (demo/src/precache-sw.ts,
// built to /demo/dist/precache/sw.js): a worker whose blobs all match installs and serves them
// with the network refusing; one with a tampered blob fails to install and caches nothing of it,
// and as an update it leaves the installed worker in charge.
import type { EnginePage } from '../../servers/engine-page.ts';
import { expect, test } from '../../servers/engine-test.ts';

const PAGE = '/demo/dist/precache/index.html';

/** Removes the precaching workers and caches a previous test left (WebKit keeps one session per worker). */
async function reset(page: EnginePage): Promise<void> {
  await page.goto(PAGE);
  await page.evaluate(async () => {
    for (const reg of await navigator.serviceWorker.getRegistrations()) {
      if (new URL(reg.scope).pathname.startsWith('/demo/dist/precache/')) await reg.unregister();
    }
    for (const name of await caches.keys()) if (name.includes('precache')) await caches.delete(name);
  });
  // A fresh load, so no worker of a previous test controls the page.
  await page.goto(PAGE);
}

test.describe('Blake3IntegrityPlugin with workbox-precaching in a service worker', () => {
  test.beforeEach(async ({ enginePage }) => reset(enginePage));
  test.afterEach(async ({ enginePage }) => reset(enginePage));

  test('matching blobs are precached and served without the network; a tampered update fails and changes nothing', async ({
    enginePage,
  }) => {
    const r = await enginePage.evaluate(async () => {
      const hex = (b: ArrayBuffer) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, '0')).join('');
      const { blake3 } = (await import('/packages/core/dist/index.js' as string)) as typeof import('@blake3-web/core');
      /** Resolves with the final state of the worker that registering started: 'activated' or 'redundant'. */
      const outcome = (reg: ServiceWorkerRegistration) => {
        const worker = reg.installing ?? reg.waiting ?? reg.active!;
        return new Promise<string>((resolve) => {
          const check = () => {
            if (worker.state === 'activated' || worker.state === 'redundant') resolve(worker.state);
          };
          worker.addEventListener('statechange', check);
          check();
        });
      };
      const precached = async () => {
        const names = (await caches.keys()).filter((n) => n.includes('precache'));
        const urls: string[] = [];
        for (const name of names) for (const req of await (await caches.open(name)).keys()) urls.push(req.url);
        return urls.sort();
      };
      const list = (await (await fetch('./blobs/index.json')).json()) as { hex: string }[];
      const [small, large] = list.map((b) => b.hex);
      const url = (path: string) => new URL(path, location.href).href;
      const controlled = new Promise((resolve) =>
        navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }),
      );
      const reg = await navigator.serviceWorker.register(`./sw.js?blob=blobs/${small}&blob=blobs/${large}`, {
        scope: './',
      });
      const first = await outcome(reg);
      await controlled;
      const cachedGood = await precached();
      // The server refuses these requests: only the precache can answer them.
      const offline = { headers: { 'x-blob-unavailable': '1' } };
      const served: { status: number; hex: string }[] = [];
      for (const h of [small, large]) {
        const res = await fetch(`./blobs/${h}`, offline);
        served.push({
          status: res.status,
          hex: hex(blake3(new Uint8Array(await res.arrayBuffer())).buffer as ArrayBuffer),
        });
      }
      // A blob that is not precached goes to the network, which refuses it: the control case.
      const notPrecached = (await fetch(`./blobs/${small}?other=1`, offline)).status;

      // An update that adds a tampered blob: its install fails and the installed worker stays.
      const updated = await navigator.serviceWorker.register(
        `./sw.js?blob=blobs/${small}&blob=blobs/${large}&blob=${encodeURIComponent(`blobs/${large}?tamper=1`)}`,
        { scope: './' },
      );
      const update = await outcome(updated);
      const activeAfter = updated.active?.scriptURL ?? null;
      const cachedAfter = await precached();
      const stillServed = (await fetch(`./blobs/${small}`, offline)).status;
      // Had the tampered bytes been precached, the worker would answer this with a 200.
      const tamperedOffline = (await fetch(`./blobs/${large}?tamper=1`, offline)).status;
      return {
        small,
        large,
        first,
        cachedGood,
        served,
        notPrecached,
        update,
        activeAfter,
        cachedAfter,
        stillServed,
        tamperedOffline,
        expectedCached: [url(`./blobs/${small}`), url(`./blobs/${large}`)].sort(),
        firstScript: reg.active?.scriptURL,
      };
    });
    expect(r.first).toBe('activated');
    expect(r.cachedGood).toEqual(r.expectedCached);
    expect(r.served).toEqual([
      { status: 200, hex: r.small },
      { status: 200, hex: r.large },
    ]);
    expect(r.notPrecached).toBe(503);
    expect(r.update).toBe('redundant');
    expect(r.activeAfter).toBe(r.firstScript);
    expect(r.cachedAfter).toEqual(r.expectedCached);
    expect(r.stillServed).toBe(200);
    expect(r.tamperedOffline).toBe(503);
  });

  test('a worker whose only blob is tampered never installs and caches nothing', async ({ enginePage }) => {
    const r = await enginePage.evaluate(async () => {
      const list = (await (await fetch('./blobs/index.json')).json()) as { hex: string }[];
      const reg = await navigator.serviceWorker.register(
        `./sw.js?blob=${encodeURIComponent(`blobs/${list[0].hex}?tamper=1`)}`,
        { scope: './' },
      );
      const worker = reg.installing!;
      const state = await new Promise<string>((resolve) => {
        const check = () => {
          if (worker.state === 'activated' || worker.state === 'redundant') resolve(worker.state);
        };
        worker.addEventListener('statechange', check);
        check();
      });
      const cached: string[] = [];
      for (const name of await caches.keys())
        for (const req of await (await caches.open(name)).keys()) cached.push(req.url);
      // The demo's own worker (scope /demo/dist/) may control this page; this one must not.
      const controlledByIt = navigator.serviceWorker.controller?.scriptURL.includes('/precache/sw.js') ?? false;
      return { state, active: reg.active !== null, controlledByIt, cached: cached.filter((u) => u.includes('tamper')) };
    });
    expect(r).toEqual({ state: 'redundant', active: false, controlledByIt: false, cached: [] });
  });

  test('a URL the precache route maps to an entry falls back to the network only with bytes that match the entry', async ({
    enginePage,
  }) => {
    const r = await enginePage.evaluate(async () => {
      const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
      const { blake3 } = (await import('/packages/core/dist/index.js' as string)) as typeof import('@blake3-web/core');
      const list = (await (await fetch('./blobs/index.json')).json()) as { hex: string }[];
      // A Bao encoding: its URL does not name its content, so only the manifest's digest can check it.
      const path = `blobs/${list[0].hex}.bao`;
      const baoHex = hex(blake3(new Uint8Array(await (await fetch(`./${path}`)).arrayBuffer())));
      const controlled = new Promise((resolve) =>
        navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }),
      );
      // `tamper` is one of the parameters the route ignores: `?tamper=1` maps to the entry, and
      // the server flips a byte of what it sends for it.
      const reg = await navigator.serviceWorker.register(
        `./sw.js?entry=${encodeURIComponent(`${path} ${baoHex}`)}&ignore=tamper`,
        { scope: './' },
      );
      const worker = reg.installing ?? reg.waiting ?? reg.active!;
      const state = await new Promise<string>((resolve) => {
        const check = () => {
          if (worker.state === 'activated' || worker.state === 'redundant') resolve(worker.state);
        };
        worker.addEventListener('statechange', check);
        check();
      });
      await controlled;
      const get = (url: string) =>
        fetch(url).then(
          async (res) => `${res.status} ${hex(blake3(new Uint8Array(await res.arrayBuffer())))}`,
          (e: Error) => `rejected ${e.name}`,
        );
      const fromCache = await get(`./${path}?tamper=1`);
      // As after an eviction: the entry is gone, and the route falls back to the network.
      for (const name of await caches.keys()) {
        if (!name.includes('precache')) continue;
        const cache = await caches.open(name);
        for (const key of await cache.keys()) await cache.delete(key);
      }
      const tampered = await get(`./${path}?tamper=1`);
      const variant = await get(`./${path}?utm_source=e2e`);
      return { baoHex, state, fromCache, tampered, variant };
    });
    expect(r.state).toBe('activated');
    expect(r.fromCache).toBe(`200 ${r.baoHex}`);
    expect(r.tampered).toMatch(/^rejected TypeError/);
    expect(r.variant).toBe(`200 ${r.baoHex}`);
  });
});
