// Cache hits the plugin did not verify: entries written by page code, by a worker without the
// plugin, or changed on disk are hashed before they are used (or refused), and bodies the plugin
// verified itself are answered from its memory without reading the entry. "Hashed" is counted as
// the bytes read from the cached body: the plugin cannot hash bytes it never read.
import { blake3, bytesToHex } from '@blake3-web/core';
import { Random } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FetchEvent, serviceWorkerScope } from './service-worker-scope.ts';

const sw = serviceWorkerScope('https://example.com/sw.js');
const { Blake3IntegrityPlugin } = await import('@blake3-web/workbox');
const { CacheFirst } = await import('workbox-strategies/CacheFirst.js');

const random = new Random(29);
const data = random.bytes(100_000);
const hex = bytesToHex(blake3(data));
const other = random.bytes(100_000);
const otherHex = bytesToHex(blake3(other));
const third = random.bytes(100_000);
const thirdHex = bytesToHex(blake3(third));
const bodies = new Map([
  [hex, data],
  [otherHex, other],
  [thirdHex, third],
]);
const url = (h: string) => `https://example.com/blobs/${h}`;
const tampered = (bytes: Uint8Array) => {
  const bad = bytes.slice();
  bad[bad.length >> 1] ^= 1;
  return bad;
};

/** The origin: every blob by its digest; the requests it got are in `sw.requests`. */
sw.respondWith((request) => {
  const body = bodies.get(new URL(request.url).pathname.split('/').pop()!);
  return body ? new Response(body.slice()) : new Response('not found', { status: 404 });
});

/** A cached entry as the cache hands it over, counting the bytes read from its body. */
function cachedEntry(bytes: Uint8Array, init: ResponseInit = {}) {
  const counter = { read: 0 };
  let at = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (at >= bytes.length) return controller.close();
        const piece = bytes.slice(at, at + 16_384);
        at += piece.length;
        counter.read += piece.length;
        controller.enqueue(piece);
      },
    },
    { highWaterMark: 0 },
  );
  return { response: new Response(body, { status: 200, ...init }), counter };
}

const event = new FetchEvent('fetch', { request: new Request(url(hex)) }) as never;

function pluginWithReports(opts: ConstructorParameters<typeof Blake3IntegrityPlugin>[0] = {}) {
  const reports: { url: string; expected: string; actual: string }[] = [];
  const plugin = new Blake3IntegrityPlugin({
    ...opts,
    onMismatch: ({ request, error }) =>
      reports.push({ url: request.url, expected: error.expected, actual: error.actual }),
  });
  /** What the strategy gets for a hit of `response` at `h`'s URL. */
  const hit = (h: string, response: Response) =>
    plugin.cachedResponseWillBeUsed!({
      cacheName: 'blobs',
      request: new Request(url(h)),
      cachedResponse: response,
      event,
    });
  /** The plugin's check of what it is about to store. */
  const store = (h: string, response: Response) =>
    plugin.cacheWillUpdate!({ request: new Request(url(h)), response, event });
  return { plugin, reports, hit, store };
}

async function bytesOf(response: Response | null | undefined | void): Promise<Uint8Array | string> {
  if (!response) return `refused (${String(response)})`;
  return new Uint8Array(await response.arrayBuffer());
}

describe('cache hits of Blake3IntegrityPlugin', () => {
  it('an entry the plugin stored is answered from what it verified: the entry is never read', async () => {
    const { store, hit, reports } = pluginWithReports();
    const stored = new Response(data.slice(), { headers: { 'content-type': 'application/octet-stream' } });
    assert.equal(await store(hex, stored), stored);
    for (let i = 0; i < 3; i++) {
      const entry = cachedEntry(data, { headers: { 'content-type': 'application/octet-stream' } });
      const used = (await hit(hex, entry.response)) as Response;
      assert.deepEqual(await bytesOf(used), data);
      assert.equal(used.headers.get('content-type'), 'application/octet-stream');
      assert.equal(entry.counter.read, 0, `hit ${i}: bytes read (and so hashed) from the entry`);
    }
    assert.deepEqual(reports, []);
  });

  it('an entry it did not store (page code, a worker without the plugin) is read and hashed once, then held', async () => {
    const { hit, reports } = pluginWithReports();
    const first = cachedEntry(data);
    assert.deepEqual(await bytesOf(await hit(hex, first.response)), data);
    assert.equal(first.counter.read, data.length);
    const second = cachedEntry(data);
    assert.deepEqual(await bytesOf(await hit(hex, second.response)), data);
    assert.equal(second.counter.read, 0);
    assert.deepEqual(reports, []);
  });

  it('wrong bytes are refused and reported, with every header of an entry the plugin stored copied onto them', async () => {
    // The plugin writes no mark: whatever headers its entries carry, page code can copy.
    const a = pluginWithReports();
    const stored = new Response(data.slice(), { headers: { 'content-type': 'image/png', etag: '"v1"' } });
    assert.equal(await a.store(hex, stored), stored);
    const headers = new Headers(stored.headers);
    // The same worker: page code overwrote the entry, the worker answers with what it verified.
    const overwritten = cachedEntry(tampered(data), { headers });
    assert.deepEqual(await bytesOf(await a.hit(hex, overwritten.response)), data);
    assert.equal(overwritten.counter.read, 0);
    // A worker started since (nothing held): the forged entry is read, hashed and refused.
    const b = pluginWithReports();
    const forged = cachedEntry(tampered(data), { headers });
    assert.equal(await b.hit(hex, forged.response), null);
    assert.equal(forged.counter.read, data.length);
    assert.deepEqual(b.reports, [{ url: url(hex), expected: hex, actual: bytesToHex(blake3(tampered(data))) }]);
    // And a forged entry under another digest, headers copied, in the first worker too.
    const elsewhere = cachedEntry(tampered(other), { headers });
    assert.equal(await a.hit(otherHex, elsewhere.response), null);
    assert.equal(a.reports.length, 1);
    assert.equal(a.reports[0].expected, otherHex);
  });

  it('a body that is shorter, longer or empty is refused; so is an entry that is not a 200', async () => {
    const { hit, reports } = pluginWithReports();
    for (const bytes of [data.subarray(0, 99_999), new Uint8Array([...data, 0]), new Uint8Array(0)])
      assert.equal(await hit(hex, cachedEntry(bytes).response), null, `${bytes.length} bytes`);
    for (const status of [203, 206, 404])
      assert.equal(await hit(hex, cachedEntry(data, { status }).response), null, `status ${status}`);
    assert.equal(reports.length, 6);
  });

  it('with memoryBytes: 0 every hit is read and hashed; past memoryBytes the least recently used body goes', async () => {
    const none = pluginWithReports({ memoryBytes: 0 });
    await none.store(hex, new Response(data.slice()));
    for (let i = 0; i < 2; i++) {
      const entry = cachedEntry(data);
      assert.deepEqual(await bytesOf(await none.hit(hex, entry.response)), data);
      assert.equal(entry.counter.read, data.length);
    }
    const two = pluginWithReports({ memoryBytes: 250_000 });
    for (const [h, bytes] of [
      [hex, data],
      [otherHex, other],
      [thirdHex, third],
    ] as const)
      await two.store(h, new Response(bytes.slice()));
    const reads: Record<string, number> = {};
    for (const [h, bytes] of [
      [thirdHex, third],
      [otherHex, other],
      [hex, data],
    ] as const) {
      const entry = cachedEntry(bytes);
      assert.deepEqual(await bytesOf(await two.hit(h, entry.response)), bytes);
      reads[h] = entry.counter.read;
    }
    assert.deepEqual(reads, { [thirdHex]: 0, [otherHex]: 0, [hex]: data.length });
  });

  it('requests without a digest pass through untouched; a streaming plugin errors a wrong hit at its end', async () => {
    const { plugin } = pluginWithReports();
    const entry = cachedEntry(tampered(data));
    const passed = await plugin.cachedResponseWillBeUsed!({
      cacheName: 'blobs',
      request: new Request('https://example.com/app.js'),
      cachedResponse: entry.response,
      event,
    });
    assert.equal(passed, entry.response);
    const streaming = pluginWithReports({ verify: 'streaming', memoryBytes: 0 });
    const bad = (await streaming.hit(hex, cachedEntry(tampered(data)).response)) as Response;
    await assert.rejects(bad.arrayBuffer(), { name: 'IntegrityError' });
  });
});

describe('cache hits through CacheFirst, in a service-worker scope', () => {
  /** A worker's CacheFirst route with the plugin; `serve` is a page's fetch through it. */
  function worker() {
    const mismatches: string[] = [];
    const strategy = new CacheFirst({
      cacheName: 'blobs',
      plugins: [new Blake3IntegrityPlugin({ onMismatch: ({ error }) => mismatches.push(error.actual) })],
    });
    const serve = async (h: string) => {
      const request = new Request(url(h));
      const response = await strategy.handle({ event: new FetchEvent('fetch', { request }) as never, request });
      return response.type === 'error' ? 'network error' : new Uint8Array(await response.arrayBuffer());
    };
    return { serve, mismatches };
  }
  const cache = () => caches.open('blobs');
  /** Page code writing an entry (it can write any bytes and any header). */
  const pageWrites = async (h: string, bytes: Uint8Array, headers?: HeadersInit) =>
    (await cache()).put(url(h), new Response(bytes as Uint8Array<ArrayBuffer>, { headers }));
  const networkAsked = (h: string) => sw.requests.filter((u) => u === url(h)).length;
  const settle = () => new Promise((r) => setTimeout(r, 20));

  it('an entry page code overwrote is never used: the worker that verified it answers from memory, a new one refuses it and fetches again', async () => {
    const first = worker();
    assert.deepEqual(await first.serve(hex), data);
    await settle(); // the strategy writes the cache in waitUntil
    assert.equal(networkAsked(hex), 1);
    const storedHeaders = new Headers((await (await cache()).match(url(hex)))!.headers);
    await pageWrites(hex, tampered(data), storedHeaders);
    assert.deepEqual(await first.serve(hex), data);
    assert.equal(networkAsked(hex), 1, 'answered without the network');
    assert.deepEqual(first.mismatches, [], 'the overwritten entry was not read');

    const restarted = worker();
    assert.deepEqual(await restarted.serve(hex), data);
    await settle();
    assert.equal(networkAsked(hex), 2, 'the refused entry sent the strategy to the network');
    assert.deepEqual(restarted.mismatches, [bytesToHex(blake3(tampered(data)))]);
    assert.deepEqual(new Uint8Array(await (await (await cache()).match(url(hex)))!.arrayBuffer()), data);
  });

  it('an entry page code wrote for a URL the worker never fetched: wrong bytes are refused, right ones hashed once', async () => {
    const w = worker();
    await pageWrites(otherHex, tampered(other));
    assert.deepEqual(await w.serve(otherHex), other);
    assert.equal(networkAsked(otherHex), 1);
    await settle();
    await pageWrites(thirdHex, third);
    assert.deepEqual(await w.serve(thirdHex), third);
    assert.equal(networkAsked(thirdHex), 0);
    assert.deepEqual(w.mismatches, [bytesToHex(blake3(tampered(other)))]);
  });
});
