// Blake3IntegrityPlugin inside workbox-precaching: install fetches every entry through the
// plugin's fetchDidSucceed and stores it through its cacheWillUpdate; a refused entry makes
// PrecacheStrategy throw, which fails the install event.
import { blake3, bytesToHex } from '@blake3-web/core';
import { Random } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ExtendableEvent, FetchEvent, serviceWorkerScope } from './service-worker-scope.ts';

const sw = serviceWorkerScope('https://example.com/app/sw.js');
const { PrecacheController } = await import('workbox-precaching/PrecacheController.js');
const { PrecacheRoute } = await import('workbox-precaching/PrecacheRoute.js');
const { Blake3IntegrityPlugin, hashFromPrecacheManifest, hashFromUrlPath, firstOf } =
  await import('@blake3-web/workbox');

const random = new Random(11);
const blob = random.bytes(70_000);
const blobHex = bytesToHex(blake3(blob));
const app = new TextEncoder().encode('console.log("app");\n'.repeat(500));
const appHex = bytesToHex(blake3(app));
const css = new TextEncoder().encode('body { color: black }\n');

/** The origin: `?tamper=1` flips one byte, `?down=1` fails like a server that is gone. */
let offline = false;
sw.respondWith((request) => {
  const url = new URL(request.url);
  if (offline) throw new TypeError('Failed to fetch');
  const body =
    url.pathname === `/app/blobs/${blobHex}`
      ? blob
      : url.pathname === '/app/app.js'
        ? app
        : url.pathname === '/app/app.css'
          ? css
          : undefined;
  if (!body) return new Response('not found', { status: 404 });
  const bytes = body.slice();
  if (url.searchParams.has('tamper')) bytes[bytes.length >> 1] ^= 0x20;
  return new Response(bytes, { status: 200 });
});

let cacheSerial = 0;
function precache(entries: Parameters<typeof hashFromPrecacheManifest>[0], cacheName = `precache-${++cacheSerial}`) {
  const mismatches: string[] = [];
  const controller = new PrecacheController({ cacheName });
  controller.addToCacheList(entries as never);
  controller.strategy.plugins.push(
    new Blake3IntegrityPlugin({
      expectedHash: firstOf(hashFromPrecacheManifest(entries), hashFromUrlPath),
      onMismatch: ({ request }) => mismatches.push(request.url),
    }),
  );
  return {
    controller,
    mismatches,
    async install() {
      const event = new ExtendableEvent('install');
      await controller.install(event as never).catch(() => {});
      return event.settled();
    },
    async cachedUrls() {
      const cache = await caches.open(controller.strategy.cacheName);
      return (await cache.keys()).map((r) => r.url).sort();
    },
    /** What a page's fetch of `url` gets from the precache route. */
    async serve(url: string) {
      const request = new Request(new URL(url, location.href));
      const response = await controller.strategy.handle({
        event: new FetchEvent('fetch', { request }) as never,
        request,
      });
      // Response.error() is what the page's fetch() rejects on (a network error).
      if (response.type === 'error') return 'network error';
      return new Uint8Array(await response.arrayBuffer());
    },
  };
}

describe('Blake3IntegrityPlugin with workbox-precaching', () => {
  it('installs matching entries, then serves them without the network', async () => {
    const manifest = [
      { url: `blobs/${blobHex}`, revision: null },
      { url: 'app.js', revision: appHex, blake3: appHex },
      { url: 'app.css', revision: '1' },
    ];
    const p = precache(manifest);
    await p.install();
    assert.deepEqual(p.mismatches, []);
    assert.deepEqual(await p.cachedUrls(), [
      `https://example.com/app/app.css?__WB_REVISION__=1`,
      `https://example.com/app/app.js?__WB_REVISION__=${appHex}`,
      `https://example.com/app/blobs/${blobHex}`,
    ]);
    offline = true;
    try {
      assert.deepEqual(await p.serve(`blobs/${blobHex}`), blob);
      assert.deepEqual(await p.serve('app.js'), app);
    } finally {
      offline = false;
    }
  });

  it('a precached entry page code overwrote is never used: the worker that installed it answers from memory, a restarted one refuses it', async () => {
    const manifest = [
      { url: `blobs/${blobHex}`, revision: null },
      { url: 'app.js', revision: appHex, blake3: appHex },
    ];
    const cacheName = 'precache-overwritten';
    const installed = precache(manifest, cacheName);
    await installed.install();
    // Page code writes other bytes under the entries' cache keys, keeping their headers.
    const cache = await caches.open(cacheName);
    for (const key of await cache.keys()) {
      const entry = (await cache.match(key))!;
      const bad = new Uint8Array(await entry.arrayBuffer());
      bad[0] ^= 1;
      await cache.put(key, new Response(bad, { headers: entry.headers }));
    }
    offline = true;
    try {
      assert.deepEqual(await installed.serve(`blobs/${blobHex}`), blob);
      assert.deepEqual(await installed.serve('app.js'), app);
      assert.deepEqual(installed.mismatches, [], 'the overwritten entries were not read');
      // A worker started since holds nothing: each entry is hashed, refused, and the route's
      // fallback to the network fails (offline), so the page's fetch fails, never gets the bytes.
      const restarted = precache(manifest, cacheName);
      await assert.rejects(restarted.serve(`blobs/${blobHex}`), { message: 'Failed to fetch' });
      await assert.rejects(restarted.serve('app.js'), { message: 'Failed to fetch' });
      assert.deepEqual(restarted.mismatches.sort(), [
        `https://example.com/app/app.js?__WB_REVISION__=${appHex}`,
        `https://example.com/app/blobs/${blobHex}`,
      ]);
    } finally {
      offline = false;
    }
  });

  it('fails the install when an entry does not match, and never caches that entry', async () => {
    const manifest = [
      { url: 'app.css', revision: '1' },
      { url: `blobs/${blobHex}?tamper=1`, revision: null },
      { url: 'app.js', revision: appHex, blake3: appHex },
    ];
    const p = precache(manifest);
    await assert.rejects(p.install(), {
      name: 'bad-precaching-response',
      message: /request for '[^']*\/blobs\/[0-9a-f]{64}\?tamper=1' failed\.$/,
    });
    assert.deepEqual(p.mismatches, [`https://example.com/app/blobs/${blobHex}?tamper=1`]);
    // Entries are cached one at a time: those before the bad one are there (and good), it and
    // those after it are not; the worker is discarded, so nothing serves them.
    assert.deepEqual(await p.cachedUrls(), ['https://example.com/app/app.css?__WB_REVISION__=1']);
  });

  it('fails the install on a manifest digest that the content does not have', async () => {
    const p = precache([{ url: 'app.js', revision: '2', blake3: blobHex }]);
    await assert.rejects(p.install(), { name: 'bad-precaching-response' });
    assert.deepEqual(await p.cachedUrls(), []);
    assert.deepEqual(p.mismatches, ['https://example.com/app/app.js']);
  });

  it('a failed update leaves the installed entries in place and serving', async () => {
    const v1 = precache([{ url: 'app.js', revision: appHex, blake3: appHex }], 'precache-shared');
    await v1.install();
    const v2 = precache(
      [
        { url: 'app.js', revision: appHex, blake3: appHex },
        { url: `blobs/${blobHex}?tamper=1`, revision: null },
      ],
      'precache-shared',
    );
    await assert.rejects(v2.install(), { name: 'bad-precaching-response' });
    assert.deepEqual(await v1.cachedUrls(), [`https://example.com/app/app.js?__WB_REVISION__=${appHex}`]);
    assert.deepEqual(await v1.serve('app.js'), app);
  });

  it('an entry missing from the cache is fetched again through the plugin, and refused if it does not match', async () => {
    const p = precache([{ url: `blobs/${blobHex}?tamper=1`, revision: null, integrity: 'sha256-unchecked-in-node' }]);
    // Nothing was installed (as after an eviction): the precache route falls back to the network.
    assert.equal(await p.serve(`blobs/${blobHex}?tamper=1`), 'network error');
    assert.deepEqual(await p.cachedUrls(), []);
    assert.equal(p.mismatches.length, 1);
  });

  it('an entry answering 404 fails the install, as without the plugin', async () => {
    const p = precache([{ url: 'missing.js', revision: '1' }]);
    await assert.rejects(p.install(), { name: 'bad-precaching-response', message: /HTTP status of 404/ });
  });
});

describe('hashFromPrecacheManifest', () => {
  it('maps entry URLs, resolved against the service worker, to their blake3', () => {
    const resolve = hashFromPrecacheManifest([
      `blobs/${blobHex}`,
      { url: '/app/app.js#top', blake3: appHex.toUpperCase() },
      { url: 'app.css', revision: '1' },
    ]);
    assert.equal(resolve(new Request('https://example.com/app/app.js')), appHex);
    assert.equal(resolve(new Request('https://example.com/app/app.js#x')), appHex);
    assert.equal(resolve(new Request('https://example.com/app/app.css')), undefined);
    assert.equal(resolve(new Request(`https://example.com/app/blobs/${blobHex}`)), undefined);
    const based = hashFromPrecacheManifest([{ url: 'app.js', blake3: appHex }], 'https://cdn.example.net/v2/');
    assert.equal(based(new Request('https://cdn.example.net/v2/app.js')), appHex);
  });

  it('rejects malformed manifests when it is created', () => {
    assert.throws(() => hashFromPrecacheManifest({} as never), {
      name: 'TypeError',
      message: /entries must be an array/,
    });
    assert.throws(() => hashFromPrecacheManifest([null as never]), { name: 'TypeError', message: /entries\[0\]/ });
    assert.throws(() => hashFromPrecacheManifest([{ url: 'a', blake3: 'abc' }]), {
      name: 'RangeError',
      message: /entries\[0\]\.blake3 .*"abc"/,
    });
    assert.throws(() => hashFromPrecacheManifest(['a', { url: 'b', blake3: 'zz' }]), {
      name: 'RangeError',
      message: /entries\[1\]\.blake3/,
    });
  });
});

describe('every URL Workbox maps to an entry is checked against that entry', () => {
  // The origin answers every form of the page's URL with the page, tampered while `evil` is set.
  const page = new TextEncoder().encode('<!doctype html><title>app</title>\n'.repeat(200));
  const pageHex = bytesToHex(blake3(page));
  const forms = ['/app/', '/app/index.html', '/app/index', '/app/home'];
  let evil = false;

  function route() {
    const p = precache([{ url: 'index.html', revision: '7', blake3: pageHex }]);
    const precacheRoute = new PrecacheRoute(p.controller, {
      directoryIndex: 'index.html',
      cleanURLs: true,
      ignoreURLParametersMatching: [/^utm_/],
      urlManipulation: ({ url }) => (url.pathname === '/app/home' ? [new URL('/app/index.html', url)] : []),
    });
    return {
      ...p,
      /** What a page's fetch of `url` gets through the precache route, with nothing cached (as after an eviction). */
      async serve(url: string) {
        const request = new Request(new URL(url, location.href));
        const fetchEvent = new FetchEvent('fetch', { request });
        const params = precacheRoute.match({
          url: new URL(request.url),
          request,
          event: fetchEvent as never,
          sameOrigin: true,
        });
        assert.ok(params, `${url} maps to the entry`);
        const response = await (precacheRoute.handler as { handle: (o: object) => Promise<Response> }).handle({
          event: fetchEvent,
          request,
          params,
        });
        if (response.type === 'error') return 'network error';
        return new Uint8Array(await response.arrayBuffer());
      },
    };
  }

  it('the directory index, ignored parameters, clean URLs and urlManipulation all fall back to checked bytes', async () => {
    sw.respondWith((request) => {
      const url = new URL(request.url);
      if (!forms.includes(url.pathname)) return new Response('not found', { status: 404 });
      const body = page.slice();
      if (evil) body[100] ^= 1;
      return new Response(body);
    });
    const r = route();
    const variants = ['/app/', '/app/index.html?utm_source=mail', '/app/index', '/app/home', '/app/index.html'];
    try {
      evil = true;
      for (const url of variants) assert.equal(await r.serve(url), 'network error', url);
      assert.equal(r.mismatches.length, variants.length);
      assert.deepEqual(await r.cachedUrls(), []);
      evil = false;
      for (const url of variants) assert.deepEqual(await r.serve(url), page, url);
    } finally {
      evil = false;
    }
  });
});

describe('hashFromManifest in a service worker', () => {
  it('resolves relative URLs against the worker, whatever request comes first', async () => {
    const { hashFromManifest } = await import('@blake3-web/workbox');
    const resolve = hashFromManifest({ 'app.js': appHex, 'https://cdn.example.net/lib.js': blobHex });
    // A cross-origin request first must not move where relative URLs point.
    assert.equal(resolve(new Request('https://cdn.example.net/lib.js')), blobHex);
    assert.equal(resolve(new Request('https://cdn.example.net/app.js')), undefined);
    assert.equal(resolve(new Request('https://cdn.example.net/app/app.js')), undefined);
    assert.equal(resolve(new Request('https://example.com/app/app.js')), appHex);
    // So a tampered same-origin app.js after a CDN request is refused.
    const plugin = new Blake3IntegrityPlugin({ expectedHash: resolve });
    const event = new FetchEvent('fetch', { request: new Request('https://example.com/app/app.js') }) as never;
    await plugin.fetchDidSucceed!({
      request: new Request('https://cdn.example.net/lib.js'),
      response: new Response(blob.slice()),
      event,
      state: {},
    });
    const bad = app.slice();
    bad[3] ^= 1;
    const used = await plugin.fetchDidSucceed!({
      request: new Request('https://example.com/app/app.js'),
      response: new Response(bad),
      event,
      state: {},
    });
    assert.equal(used.type, 'error');
  });
});
