// The plugin fails closed: every answer with a body for a request with a digest is checked or
// refused, digests too short to check anything are errors, a digest header that is there but
// unusable fails the response, and 'before-use' never holds more than maxBytes.
import { blake3, bytesToHex } from '@blake3-web/core';
import {
  Blake3IntegrityPlugin,
  hashFromDigestHeader,
  hashFromHeader,
  hashFromManifest,
  parseDigestField,
} from '@blake3-web/workbox';
import { Random, readAll } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

const data = new Random(16).bytes(50_000);
const hex = bytesToHex(blake3(data));
const b64 = btoa(String.fromCharCode(...blake3(data)));
const event = {} as Parameters<NonNullable<Blake3IntegrityPlugin['fetchDidSucceed']>>[0]['event'];
const blobRequest = (headers?: HeadersInit) => new Request(`https://example.com/blobs/${hex}`, { headers });
const tampered = () => {
  const bad = data.slice();
  bad[777] ^= 1;
  return bad;
};

async function fetchDidSucceed(plugin: Blake3IntegrityPlugin, request: Request, response: Response) {
  return (await plugin.fetchDidSucceed!({ request, response, event, state: {} }))!;
}

/** What a page gets: 'network error', 'body error <name>' or the bytes of a successful read. */
async function outcome(response: Response): Promise<string | Uint8Array> {
  if (response.type === 'error') return 'network error';
  const { bytes, error } = await readAll(response.body ?? new Blob([]).stream());
  return error === undefined ? bytes : `body error ${(error as Error).name}`;
}

describe('every 2xx for a request with a digest is checked', () => {
  for (const verify of ['before-use', 'streaming'] as const) {
    it(`${verify}: 201, 203, 226 and 299 with tampered bytes fail, with matching bytes pass`, async () => {
      const plugin = new Blake3IntegrityPlugin({ verify });
      for (const status of [201, 202, 203, 226, 299]) {
        const bad = await outcome(await fetchDidSucceed(plugin, blobRequest(), new Response(tampered(), { status })));
        assert.match(String(bad), /^(network error|body error IntegrityError)$/, `status ${status}`);
        const good = await fetchDidSucceed(plugin, blobRequest(), new Response(data.slice(), { status }));
        assert.equal(good.status, status);
        assert.deepEqual(await outcome(good), data);
      }
    });

    it(`${verify}: a 206 nobody asked for, or only part of the content, is a network error; the whole content of a range is checked`, async () => {
      const reports: string[] = [];
      const plugin = new Blake3IntegrityPlugin({ verify, onMismatch: ({ error }) => reports.push(error.message) });
      const whole = { 'content-range': `bytes 0-${data.length - 1}/${data.length}` };
      // Unasked: even the whole, matching content does not pass.
      assert.equal(
        await outcome(
          await fetchDidSucceed(plugin, blobRequest(), new Response(data.slice(), { status: 206, headers: whole })),
        ),
        'network error',
      );
      // Asked, but a part: a whole-content digest cannot check it.
      const part = new Response(data.slice(0, 100), {
        status: 206,
        headers: { 'content-range': `bytes 0-99/${data.length}` },
      });
      assert.equal(
        await outcome(await fetchDidSucceed(plugin, blobRequest({ range: 'bytes=0-99' }), part)),
        'network error',
      );
      assert.equal(reports.length, 2);
      // Asked, and the whole content: checked like a 200.
      const good = await fetchDidSucceed(
        plugin,
        blobRequest({ range: 'bytes=0-' }),
        new Response(data.slice(), { status: 206, headers: whole }),
      );
      assert.equal(good.status, 206);
      assert.deepEqual(await outcome(good), data);
      const bad = await fetchDidSucceed(
        plugin,
        blobRequest({ range: 'bytes=0-' }),
        new Response(tampered(), { status: 206, headers: whole }),
      );
      assert.match(String(await outcome(bad)), /^(network error|body error IntegrityError)$/);
    });
  }

  it('a 2xx without a body is checked as empty content; error statuses pass as they are', async () => {
    const plugin = new Blake3IntegrityPlugin();
    assert.equal(
      await outcome(await fetchDidSucceed(plugin, blobRequest(), new Response(null, { status: 204 }))),
      'network error',
    );
    const emptyHex = bytesToHex(blake3(new Uint8Array(0)));
    const empty = await fetchDidSucceed(
      plugin,
      new Request(`https://example.com/blobs/${emptyHex}`),
      new Response(null, { status: 204 }),
    );
    assert.equal(empty.status, 204);
    const notFound = new Response('gone', { status: 404 });
    assert.equal(await fetchDidSucceed(plugin, blobRequest(), notFound), notFound);
  });
});

describe('digests shorter than 16 bytes are refused', () => {
  it('from a resolver: empty, 1 and 15 bytes are RangeErrors, 16 bytes are checked', async () => {
    for (const short of ['', new Uint8Array(0), '00', new Uint8Array(1), blake3(data, { dkLen: 15 })]) {
      const plugin = new Blake3IntegrityPlugin({ expectedHash: () => short });
      await assert.rejects(fetchDidSucceed(plugin, blobRequest(), new Response(tampered())), {
        name: 'RangeError',
        message: /at least 16 bytes/,
      });
      await assert.rejects(
        plugin.cacheWillUpdate!({ request: blobRequest(), response: new Response(tampered()), event }),
        { name: 'RangeError' },
      );
    }
    const sixteen = new Blake3IntegrityPlugin({ expectedHash: () => blake3(data, { dkLen: 16 }) });
    assert.equal((await fetchDidSucceed(sixteen, blobRequest(), new Response(tampered()))).type, 'error');
    assert.deepEqual(await outcome(await fetchDidSucceed(sixteen, blobRequest(), new Response(data.slice()))), data);
  });

  it('from headers and manifests', () => {
    const request = new Request('https://e.com/file');
    assert.throws(
      () => hashFromDigestHeader()(request, new Response('x', { headers: { 'repr-digest': 'blake3=::' } })),
      { name: 'RangeError', message: /at least 16 bytes, got 0/ },
    );
    assert.throws(() => hashFromHeader('x-blake3')(request, new Response('x', { headers: { 'x-blake3': '00' } })), {
      name: 'RangeError',
      message: /at least 16 bytes, got 1/,
    });
    assert.throws(() => hashFromManifest({ '/a.js': '' }, 'https://e.com/'), { name: 'RangeError' });
    assert.throws(() => hashFromManifest({ '/a.js': 'ab'.repeat(15) }, 'https://e.com/'), {
      name: 'RangeError',
      message: /at least 16 bytes, got 15/,
    });
  });
});

describe('a digest header that is present but unusable fails the response', () => {
  const request = new Request('https://e.com/file');
  const withField = (field: string, body: Uint8Array<ArrayBuffer> = tampered()) =>
    new Response(body, { headers: { 'repr-digest': field } });

  it('malformed fields and blake3 members are RangeErrors; unknown algorithms alone say nothing', async () => {
    const plugin = new Blake3IntegrityPlugin({ expectedHash: hashFromDigestHeader() });
    for (const field of [
      `blake3=:${b64.slice(1)}:`, // not base64 (length)
      `blake3=:${b64.replace(/[A-Z]/, '#')}:`, // a character outside base64
      `BLAKE3=:${b64}:`, // keys are lower case (RFC 8941, 3.2)
      `blake3="${hex}"`, // a string, not a byte sequence
      `blake3=${hex.replace(/^[0-9]+/, '')}`, // a token
      `blake3=:${b64}:,`, // trailing comma
      `sha-256=:${b64}: blake3=:${b64}:`, // no comma between members
      'blake3', // a bare key is boolean true
    ]) {
      await assert.rejects(fetchDidSucceed(plugin, request, withField(field)), { name: 'RangeError' }, field);
      await assert.rejects(
        plugin.cacheWillUpdate!({ request, response: withField(field), event }),
        { name: 'RangeError' },
        field,
      );
    }
    // An algorithm the resolver does not know is no opinion, as is no field at all.
    assert.equal(hashFromDigestHeader()(request, withField(`sha-512=:${btoa('x'.repeat(64))}:`)), undefined);
    assert.equal(parseDigestField(`unknown=?1, sha-256=:${b64}:`).has('unknown'), false);
    // Well-formed, with parameters and other members: checked.
    const good = await fetchDidSucceed(
      plugin,
      request,
      withField(`sha-256=:${b64}:, blake3=:${b64}:;p=1`, data.slice()),
    );
    assert.deepEqual(await outcome(good), data);
    assert.equal((await fetchDidSucceed(plugin, request, withField(`blake3=:${b64}:`))).type, 'error');
  });

  it('a hex header that is there but not hex is a RangeError', () => {
    const resolve = hashFromHeader('x-blake3');
    for (const value of ['zz', hex.slice(1), `${hex}g`, '']) {
      assert.throws(
        () => resolve(request, new Response('x', { headers: { 'x-blake3': value } })),
        { name: 'RangeError' },
        value,
      );
    }
  });
});

describe("'before-use' holds at most maxBytes", () => {
  /**
   * A body far longer than the limit under test, counting what it gave and whether it was
   * cancelled. It does end, at `limit` bytes, so that a reader without a bound fails the test
   * instead of running out of memory.
   */
  const endless = (limit = 80 * 2 ** 20) => {
    const seen = { bytes: 0, cancelled: false };
    const body = new ReadableStream<Uint8Array>({
      pull: (c) => {
        if (seen.bytes >= limit) return c.close();
        seen.bytes += 65_536;
        c.enqueue(new Uint8Array(65_536));
      },
      cancel: () => void (seen.cancelled = true),
    });
    return { body, seen };
  };

  it('an endless body fails past maxBytes, and is cancelled', async () => {
    const plugin = new Blake3IntegrityPlugin({ maxBytes: 1 << 20 });
    const { body, seen } = endless(8 << 20);
    await assert.rejects(fetchDidSucceed(plugin, blobRequest(), new Response(body)), {
      name: 'RangeError',
      message: /opts\.maxBytes \(1048576 bytes\)/,
    });
    assert.ok(seen.bytes <= (1 << 20) + 2 * 65_536, `read ${seen.bytes} bytes`);
    assert.ok(seen.cancelled);
  });

  it('the default is 64 MiB, and a larger Content-Length fails before reading', async () => {
    const { body, seen } = endless();
    await assert.rejects(fetchDidSucceed(new Blake3IntegrityPlugin(), blobRequest(), new Response(body)), {
      name: 'RangeError',
      message: /67108864 bytes/,
    });
    assert.ok(seen.bytes <= 64 * 2 ** 20 + 2 * 65_536);
    const declared = endless();
    const response = new Response(declared.body, { headers: { 'content-length': String(64 * 2 ** 20 + 1) } });
    await assert.rejects(fetchDidSucceed(new Blake3IntegrityPlugin(), blobRequest(), response), {
      name: 'RangeError',
      message: /Content-Length/,
    });
    assert.ok(declared.seen.bytes <= 2 * 65_536);
    // Exactly maxBytes is fine.
    const exact = new Blake3IntegrityPlugin({ maxBytes: data.length });
    assert.deepEqual(await outcome(await fetchDidSucceed(exact, blobRequest(), new Response(data.slice()))), data);
    assert.throws(() => new Blake3IntegrityPlugin({ maxBytes: -1 }), { name: 'RangeError', message: /opts\.maxBytes/ });
  });

  it('the bytes released are the bytes hashed, even from a source that reuses its buffer', async () => {
    const buffer = new Uint8Array(1000);
    let sent = 0;
    const source = new ReadableStream<Uint8Array>(
      {
        pull: (c) => {
          if (sent === data.length) return c.close();
          buffer.set(data.subarray(sent, sent + 1000));
          sent += 1000;
          c.enqueue(buffer);
        },
      },
      { highWaterMark: 0 },
    );
    const used = await fetchDidSucceed(new Blake3IntegrityPlugin(), blobRequest(), new Response(source));
    buffer.fill(0xee);
    assert.deepEqual(await outcome(used), data);
  });
});
