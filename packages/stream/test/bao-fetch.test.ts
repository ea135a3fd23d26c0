import { bytesToHex } from '@blake3-web/core';
import { baoEncode, fetchVerified, IntegrityError } from '@blake3-web/stream';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { consume, paint } from './fixtures/bao-helpers.ts';

const data = paint(300_000);
const { hash, encoded } = baoEncode(data);
const outboard = baoEncode(data, { outboard: true }).encoded;
const tampered = encoded.slice();
tampered[200_000] ^= 4;

describe('fetchVerified', () => {
  let server: Server;
  let base = '';
  const requests: string[] = [];
  before(async () => {
    const files: Record<string, Uint8Array> = {
      '/file.bao': encoded,
      '/file': data,
      '/file.obao': outboard,
      '/tampered.bao': tampered,
    };
    server = createServer((req, res) => {
      requests.push(`${req.url} ${req.headers['x-token'] ?? ''}`.trim());
      const body = files[req.url ?? ''];
      if (body === undefined) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
        return;
      }
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-length': body.length,
        'x-kind': 'bao',
      });
      // Several writes, so the body arrives in pieces.
      for (let i = 0; i < body.length; i += 50_000) res.write(body.subarray(i, i + 50_000));
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    // Clients that pool connections (Deno's fetch) would hold close() until they time out.
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('a combined encoding: the body is the verified content; status and headers kept, lengths dropped', async () => {
    const res = await fetchVerified(`${base}/file.bao`, hash);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-kind'), 'bao');
    assert.equal(res.headers.get('content-length'), null);
    assert.deepEqual(new Uint8Array(await res.arrayBuffer()), data);
  });

  it('content plus an outboard, by URL or as bytes, with init passed to every request', async () => {
    requests.length = 0;
    const byUrl = await fetchVerified(new URL('/file', base), bytesToHex(hash), {
      outboard: `${base}/file.obao`,
      init: { headers: { 'x-token': 't1' } },
    });
    assert.deepEqual(new Uint8Array(await byUrl.arrayBuffer()), data);
    assert.deepEqual(requests.sort(), ['/file t1', '/file.obao t1']);
    const byBytes = await fetchVerified(`${base}/file`, hash, { outboard });
    assert.deepEqual(new Uint8Array(await byBytes.arrayBuffer()), data);
  });

  it('a tampered encoding: the reader gets the verified prefix, then the IntegrityError', async () => {
    const res = await fetchVerified(`${base}/tampered.bao`, hash);
    const out = await consume(res.body!);
    assert.ok(out.error instanceof IntegrityError);
    assert.ok(out.released.length < 200_000);
    assert.deepEqual(out.released, data.subarray(0, out.released.length));
  });

  it('an error status rejects with the response as the cause; so does a missing outboard', async () => {
    await assert.rejects(fetchVerified(`${base}/missing.bao`, hash), (err: Error) => {
      assert.match(err.message, /answered 404/);
      assert.equal((err.cause as Response).status, 404);
      return true;
    });
    await assert.rejects(fetchVerified(`${base}/file`, hash, { outboard: `${base}/missing.obao` }), /answered 404/);
  });

  it('uses opts.fetch when given, and validates its arguments', async () => {
    const seen: string[] = [];
    const res = await fetchVerified('mem:file', hash, {
      fetch: async (input) => {
        seen.push(String(input));
        return new Response(encoded as Uint8Array<ArrayBuffer>);
      },
    });
    assert.deepEqual(new Uint8Array(await res.arrayBuffer()), data);
    assert.deepEqual(seen, ['mem:file']);
    await assert.rejects(fetchVerified('x', new Uint8Array(3)), {
      name: 'RangeError',
      message: /hash must be 32 bytes/,
    });
    await assert.rejects(fetchVerified('x', hash, { outboard: 5 as never }), {
      name: 'TypeError',
      message: /opts.outboard must be a URL, a Request or a Uint8Array/,
    });
    await assert.rejects(fetchVerified('x', hash, { chunkGroupLog: 99 }), {
      name: 'RangeError',
      message: /chunkGroupLog/,
    });
  });
});
