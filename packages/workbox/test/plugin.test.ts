import { blake3, bytesToHex } from '@blake3-web/core';
import {
  Blake3IntegrityPlugin,
  firstOf,
  hashFromDigestHeader,
  hashFromHeader,
  hashFromManifest,
  hashFromUrlPath,
  parseDigestField,
} from '@blake3-web/workbox';
import { Random } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

const data = new Random(3).bytes(200_000);
const hex = bytesToHex(blake3(data));
const event = {} as Parameters<NonNullable<Blake3IntegrityPlugin['fetchDidSucceed']>>[0]['event'];
const blobRequest = (h = hex) => new Request(`https://example.com/blobs/${h}`);
const ok = (body: Uint8Array<ArrayBuffer> = data, init?: ResponseInit) => new Response(body, init);
const tampered = () => {
  const bad = data.slice();
  bad[12345] ^= 4;
  return bad;
};

async function fetchDidSucceed(plugin: Blake3IntegrityPlugin, request: Request, response: Response) {
  return (await plugin.fetchDidSucceed!({ request, response, event }))!;
}
async function cacheWillUpdate(plugin: Blake3IntegrityPlugin, request: Request, response: Response) {
  return plugin.cacheWillUpdate!({ request, response, event });
}

describe('Blake3IntegrityPlugin', () => {
  it('a matching response is used and cached, with its bytes, status and headers', async () => {
    const plugin = new Blake3IntegrityPlugin();
    const used = await fetchDidSucceed(
      plugin,
      blobRequest(),
      ok(data, { headers: { 'content-type': 'application/octet-stream' } }),
    );
    assert.equal(used.status, 200);
    assert.equal(used.headers.get('content-type'), 'application/octet-stream');
    assert.deepEqual(new Uint8Array(await used.clone().arrayBuffer()), data);
    assert.equal(await cacheWillUpdate(plugin, blobRequest(), used), used);
  });

  it('a tampered response reaches the page as a network error and is refused by the cache, with the reason reported', async () => {
    const reports: { expected: string; actual: string }[] = [];
    const plugin = new Blake3IntegrityPlugin({ onMismatch: ({ error }) => reports.push(error) });
    const used = await fetchDidSucceed(plugin, blobRequest(), ok(tampered()));
    assert.equal(used.type, 'error');
    assert.equal(await cacheWillUpdate(plugin, blobRequest(), ok(tampered())), null);
    assert.equal(reports.length, 2);
    assert.equal(reports[0].expected, hex);
    assert.equal(reports[0].actual, bytesToHex(blake3(tampered())));
  });

  it('streaming verification passes good bodies and errors bad ones at their end', async () => {
    const plugin = new Blake3IntegrityPlugin({ verify: 'streaming' });
    const good = await fetchDidSucceed(plugin, blobRequest(), ok());
    assert.deepEqual(new Uint8Array(await good.arrayBuffer()), data);
    const bad = await fetchDidSucceed(plugin, blobRequest(), ok(tampered()));
    await assert.rejects(bad.arrayBuffer(), { name: 'IntegrityError' });
    // Even if such a response reached the cache step, it would not be cached.
    const badAgain = await fetchDidSucceed(plugin, blobRequest(), ok(tampered()));
    assert.equal(await cacheWillUpdate(plugin, blobRequest(), badAgain), null);
  });

  it('a truncated body is refused', async () => {
    const plugin = new Blake3IntegrityPlugin();
    assert.equal((await fetchDidSucceed(plugin, blobRequest(), ok(data.subarray(0, 1000)))).type, 'error');
    assert.equal(await cacheWillUpdate(plugin, blobRequest(), ok(data.subarray(0, 1000))), null);
  });

  it('requests without an expected hash pass through untouched', async () => {
    const plugin = new Blake3IntegrityPlugin();
    const request = new Request('https://example.com/app.js');
    const response = ok();
    assert.equal(await fetchDidSucceed(plugin, request, response), response);
    assert.equal(await cacheWillUpdate(plugin, request, response), response);
  });

  it('never caches error statuses, even with a matching body, and passes them to the page as they are', async () => {
    const plugin = new Blake3IntegrityPlugin();
    const notFound = ok(new TextEncoder().encode('no such blob'), { status: 404 });
    assert.equal(await fetchDidSucceed(plugin, blobRequest(), notFound), notFound);
    assert.equal(await cacheWillUpdate(plugin, blobRequest(), ok(data, { status: 404 })), null);
  });

  it('rejects bad options and bad resolver results clearly', async () => {
    assert.throws(() => new Blake3IntegrityPlugin({ expectedHash: 'x' as never }), {
      name: 'TypeError',
      message: /expectedHash must be a function/,
    });
    assert.throws(() => new Blake3IntegrityPlugin({ verify: 'later' as never }), {
      name: 'RangeError',
      message: /opts.verify/,
    });
    const plugin = new Blake3IntegrityPlugin({ expectedHash: () => 'not hex' });
    await assert.rejects(fetchDidSucceed(plugin, blobRequest(), ok()), { name: 'RangeError' });
  });
});

describe('expected hash resolvers', () => {
  it('hashFromUrlPath takes a 64-hex last segment only', () => {
    assert.equal(hashFromUrlPath(blobRequest(hex.toUpperCase())), hex);
    assert.equal(hashFromUrlPath(new Request(`https://e.com/blobs/${hex}/more`)), undefined);
    assert.equal(hashFromUrlPath(new Request(`https://e.com/blobs/${hex.slice(1)}`)), undefined);
  });

  it('hashFromHeader reads a custom hex header from the response', async () => {
    const resolve = hashFromHeader('x-blake3');
    const request = new Request('https://e.com/file');
    assert.equal(resolve(request, ok(data, { headers: { 'x-blake3': hex.toUpperCase() } })), hex);
    assert.equal(resolve(request, ok(data)), undefined);
    assert.equal(resolve(request), undefined);
    const plugin = new Blake3IntegrityPlugin({ expectedHash: resolve });
    const bad = ok(tampered(), { headers: { 'x-blake3': hex } });
    assert.equal((await fetchDidSucceed(plugin, request, bad)).type, 'error');
  });

  it('hashFromDigestHeader reads the blake3 member of Repr-Digest / Content-Digest (RFC 9530)', () => {
    const b64 = btoa(String.fromCharCode(...blake3(data)));
    const headers = {
      'repr-digest': `sha-256=:${btoa('x'.repeat(32))}:, blake3=:${b64}:`,
      'content-digest': `blake3=:${b64}:`,
    };
    const request = new Request('https://e.com/file');
    assert.deepEqual(hashFromDigestHeader()(request, ok(data, { headers })), blake3(data));
    assert.deepEqual(hashFromDigestHeader('content-digest')(request, ok(data, { headers })), blake3(data));
    assert.equal(
      hashFromDigestHeader()(request, ok(data, { headers: { 'repr-digest': 'sha-256=:AAAA:' } })),
      undefined,
    );
    assert.deepEqual([...parseDigestField('a=:AQI=:;p=1, bad, b="str", c=:AAAA:').keys()], ['a', 'c']);
  });

  it('hashFromManifest maps absolute and relative URLs, ignoring fragments', () => {
    const resolve = hashFromManifest(
      { '/assets/app.js': hex, 'https://cdn.example.com/lib.js': hex.toUpperCase() },
      'https://e.com/sw.js',
    );
    assert.equal(resolve(new Request('https://e.com/assets/app.js#x')), hex);
    assert.equal(resolve(new Request('https://cdn.example.com/lib.js')), hex);
    assert.equal(resolve(new Request('https://e.com/assets/other.js')), undefined);
  });

  it('firstOf asks each resolver in turn', () => {
    const resolve = firstOf(hashFromUrlPath, () => 'ab'.repeat(32));
    assert.equal(resolve(blobRequest()), hex);
    assert.equal(resolve(new Request('https://e.com/x')), 'ab'.repeat(32));
  });
});
