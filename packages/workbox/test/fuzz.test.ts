// Seeded fuzzing of the plugin's verify path and of verified ranges: random mutations of body,
// headers, status, digests and outboards. The invariant: a consumer that reads a successful
// response to its end holds exactly the true content (or range of it); every byte it got before
// a failure is true content too; every failure is an IntegrityError, a network error
// (Response.error(), a rejected promise) or an error status; nothing hangs.
import { blake3, bytesToHex } from '@blake3-web/core';
import { baoEncode, IntegrityError } from '@blake3-web/stream';
import {
  Blake3IntegrityPlugin,
  baoRangeHandler,
  hashFromDigestHeader,
  hashFromHeader,
  parseRange,
} from '@blake3-web/workbox';
import { chunkedStream, Random, readAll, testSeed } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

const seed = testSeed();
const CASES = 300;
const RANGE_CASES = 150;

/** Rejects instead of waiting forever: a hang is a failure too. */
function settles<T>(promise: Promise<T>, what: string, ms = 5000): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  const hang = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`hang: ${what} did not settle in ${ms} ms`)), ms)),
  );
  return Promise.race([promise, hang]).finally(() => clearTimeout(timer));
}

const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

/** A failure the invariant allows: what a page would see as a network error or an integrity error. */
function assertAllowedFailure(err: unknown, what: string): void {
  assert.ok(err instanceof Error, `${what}: rejected with a non-Error ${String(err)}`);
  assert.ok(!err.message.startsWith('hang:'), `${what}: ${err.message}`);
}

describe('fuzz: the plugin releases only the true content', () => {
  it(`${CASES} mutated responses (seed ${seed})`, async () => {
    const rng = new Random(seed);
    const event = {} as Parameters<NonNullable<Blake3IntegrityPlugin['fetchDidSucceed']>>[0]['event'];
    for (let n = 0; n < CASES; n++) {
      const content = rng.bytes(rng.pick([0, 1, 1023, 1024, 1025, rng.int(0, 20_000)]));
      const dkLen = rng.pick([16, 32, 64]);
      const digest = blake3(content, { dkLen });
      let body: Uint8Array<ArrayBuffer> = content.slice();
      const headers = new Headers();
      const requestHeaders = new Headers();
      let status = 200;
      let source = rng.pick(['fixed', 'x-blake3', 'repr-digest'] as const);
      let given: string | Uint8Array = digest;
      const done: string[] = [];
      for (let m = rng.int(0, 3); m > 0; m--) {
        const mutation = rng.pick([
          'flip',
          'truncate',
          'extend',
          'empty',
          'status',
          'range',
          'content-range',
          'digest',
          'short',
          'header',
        ]);
        done.push(mutation);
        if (mutation === 'flip' && body.length > 0) body[rng.int(0, body.length - 1)] ^= 1 << rng.int(0, 7);
        if (mutation === 'truncate') body = body.slice(0, rng.int(0, body.length));
        if (mutation === 'extend') body = new Uint8Array([...body, ...rng.bytes(rng.int(1, 100))]);
        if (mutation === 'empty') body = new Uint8Array(0);
        if (mutation === 'status') status = rng.pick([201, 203, 204, 206, 226, 299, 304, 404, 500]);
        if (mutation === 'range') requestHeaders.set('range', rng.pick(['bytes=0-', 'bytes=0-99', 'bytes=-5']));
        if (mutation === 'content-range')
          headers.set(
            'content-range',
            rng.pick([`bytes 0-${content.length - 1}/${content.length}`, `bytes 0-9/${content.length}`, 'bytes */0']),
          );
        if (mutation === 'digest') given = rng.bytes(dkLen);
        if (mutation === 'short') given = digest.subarray(0, rng.int(0, 15));
        if (mutation === 'header') source = rng.pick(['x-blake3', 'repr-digest']);
      }
      if (source === 'x-blake3') {
        const hex = bytesToHex(typeof given === 'string' ? new TextEncoder().encode(given) : given);
        headers.set(
          'x-blake3',
          rng.int(0, 4) === 0 ? rng.pick([hex.slice(1), `${hex}zz`, '', hex.toUpperCase()]) : hex,
        );
      }
      if (source === 'repr-digest') {
        const value = typeof given === 'string' ? given : b64(given);
        const forms = [
          `blake3=:${value}:`,
          `sha-256=:${b64(rng.bytes(32))}:, blake3=:${value}:;x=1`,
          `BLAKE3=:${value}:`,
          `blake3=:${value.slice(1)}:`,
          `blake3="${value}"`,
          `blake3=:${value}`,
        ];
        // (A field without a blake3 member gives no digest, and the response passes unchecked: not fuzzed.)
        headers.set('repr-digest', rng.int(0, 2) === 0 ? rng.pick(forms) : forms[0]);
      }
      const verify = rng.pick(['before-use', 'streaming'] as const);
      const maxBytes = rng.int(0, 3) === 0 ? rng.int(0, content.length + 10) : undefined;
      const expectedHash =
        source === 'fixed' ? () => given : source === 'x-blake3' ? hashFromHeader('x-blake3') : hashFromDigestHeader();
      const plugin = new Blake3IntegrityPlugin({ expectedHash, verify, maxBytes });
      const what = `case ${n} (${done.join(', ') || 'none'}; ${source}; ${verify}; status ${status}; maxBytes ${maxBytes})`;
      const makeResponse = () => {
        const noBody = status === 204 || status === 304;
        const stream = rng.int(0, 1) === 0 ? chunkedStream(rng, body, 4096) : body.slice();
        return new Response(noBody ? null : stream, { status, headers });
      };
      const request = new Request(`https://example.com/file/${n}`, { headers: requestHeaders });
      // What the page would use.
      let used: Response;
      try {
        used = (await settles(plugin.fetchDidSucceed!({ request, response: makeResponse(), event, state: {} }), what))!;
      } catch (err) {
        assertAllowedFailure(err, what);
        used = Response.error();
      }
      if (used.type !== 'error' && used.ok) {
        const { bytes, error } = await settles(readAll(used.body ?? new Blob([]).stream()), `${what}: reading`);
        if (error === undefined)
          assert.deepEqual(bytes, content, `${what}: a successful read gave other bytes than the content`);
        else assert.ok(error instanceof IntegrityError, `${what}: the body failed with ${String(error)}`);
      }
      // What the cache would keep.
      try {
        const kept = await settles(
          plugin.cacheWillUpdate!({ request, response: makeResponse(), event, state: {} }),
          `${what}: cacheWillUpdate`,
        );
        if (kept)
          assert.deepEqual(
            new Uint8Array(await kept.arrayBuffer()),
            content,
            `${what}: cached other bytes than the content`,
          );
      } catch (err) {
        assertAllowedFailure(err, `${what}: cacheWillUpdate`);
      }
    }
  });
});

describe('fuzz: verified ranges release only true content', () => {
  it(`${RANGE_CASES} mutated range answers and outboards (seed ${seed})`, async () => {
    const rng = new Random(seed ^ 0x7a11);
    const event = {} as Parameters<ReturnType<typeof baoRangeHandler>>[0]['event'];
    const contents = [0, 1, 1024, 1025, 5000, 70_000, 200_001].map((len) => {
      const content = rng.bytes(len);
      return { content, hex: bytesToHex(blake3(content)), outboard: baoEncode(content, { outboard: true }).encoded };
    });
    for (let n = 0; n < RANGE_CASES; n++) {
      const { content, hex, outboard } = rng.pick(contents);
      const done: string[] = [];
      let obao: Uint8Array<ArrayBuffer> = outboard.slice();
      let flipAt = -1;
      let truncateTo = Infinity;
      let status: number | undefined;
      let contentRange: string | undefined;
      let ignoreRange = false;
      let endlessOutboard = false;
      for (let m = rng.int(0, 2); m > 0; m--) {
        const mutation = rng.pick([
          'flip',
          'truncate',
          'status',
          'content-range',
          'ignore-range',
          'obao-flip',
          'obao-truncate',
          'obao-extend',
          'obao-length',
          'obao-endless',
        ]);
        done.push(mutation);
        if (mutation === 'flip' && content.length > 0) flipAt = rng.int(0, content.length - 1);
        if (mutation === 'truncate') truncateTo = rng.int(0, content.length);
        if (mutation === 'status') status = rng.pick([200, 203, 204, 206, 404, 500]);
        if (mutation === 'content-range')
          contentRange = rng.pick(['bytes 0-0/1', `bytes 1-5/${content.length}`, 'bytes */5', 'garbage']);
        if (mutation === 'ignore-range') ignoreRange = true;
        if (mutation === 'obao-flip') obao[rng.int(0, obao.length - 1)] ^= 1 << rng.int(0, 7);
        if (mutation === 'obao-truncate') obao = obao.slice(0, rng.int(0, obao.length - 1));
        if (mutation === 'obao-extend') obao = new Uint8Array([...obao, ...rng.bytes(rng.int(1, 100))]);
        if (mutation === 'obao-length' && obao.length >= 8)
          new DataView(obao.buffer).setBigUint64(0, BigInt(rng.int(0, 2 * content.length + 2048)), true);
        if (mutation === 'obao-endless') endlessOutboard = true;
      }
      const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
        const request = new Request(input, init);
        if (request.url.endsWith('.obao')) {
          if (!endlessOutboard) return new Response(obao.slice());
          let sent = 0;
          return new Response(
            new ReadableStream({
              pull: (c) => {
                // Ends at 16 MiB, so that an unbounded reader fails the test rather than the machine.
                if (sent > 16 * 2 ** 20) return c.close();
                c.enqueue(sent === 0 ? obao.slice() : new Uint8Array(65_536));
                sent += 65_536;
              },
            }),
          );
        }
        let body = content.slice();
        if (flipAt >= 0) body[flipAt] ^= 0x40;
        const range = parseRange(request.headers.get('range'));
        let code = 200;
        const headers = new Headers();
        if (range && !ignoreRange) {
          const first = 'suffix' in range ? Math.max(0, body.length - range.suffix) : range.first;
          const last = 'suffix' in range ? body.length - 1 : Math.min(range.last ?? body.length - 1, body.length - 1);
          if (first >= body.length)
            return new Response(null, { status: 416, headers: { 'content-range': `bytes */${body.length}` } });
          body = body.slice(first, last + 1);
          code = 206;
          headers.set('content-range', `bytes ${first}-${last}/${content.length}`);
        }
        body = body.slice(0, truncateTo);
        if (contentRange !== undefined) headers.set('content-range', contentRange);
        code = status ?? code;
        return new Response(code === 204 ? null : body, { status: code, headers });
      };
      const header = rng.pick([
        undefined,
        'bytes=0-',
        `bytes=${rng.int(0, content.length + 10)}-`,
        `bytes=-${rng.int(0, content.length + 10)}`,
        `bytes=${rng.int(0, content.length)}-${rng.int(0, content.length + 2000)}`,
        'bytes=0-1,5-6',
      ]);
      const windowBytes = rng.pick([1, 2, 4, 64]) * 1024;
      const request = new Request(`https://example.com/media/${hex}`, {
        headers: header === undefined ? {} : { range: header },
      });
      const what = `case ${n} (${content.length} bytes; ${header ?? 'no range'}; ${done.join(', ') || 'none'}; window ${windowBytes})`;
      const mismatches: IntegrityError[] = [];
      const handle = baoRangeHandler({
        outboard: (r) => `${r.url}.obao`,
        fetch,
        windowBytes,
        onMismatch: ({ error }) => mismatches.push(error),
      });
      let response: Response;
      try {
        response = await settles(handle({ request, url: new URL(request.url), event, params: undefined }), what);
      } catch (err) {
        assertAllowedFailure(err, what);
        continue;
      }
      if (response.type === 'error') {
        assert.ok(mismatches.length > 0, `${what}: a network error without a reported mismatch`);
        continue;
      }
      if (response.status === 416) {
        assert.equal(
          response.headers.get('content-range'),
          `bytes */${content.length}`,
          `${what}: a 416 with an unproven length`,
        );
        continue;
      }
      if (!response.ok) continue; // an error status from the server, passed through
      const { bytes, error } = await settles(readAll(response.body!), `${what}: reading`);
      let first = 0;
      let last = content.length - 1;
      if (response.status === 206) {
        const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(response.headers.get('content-range') ?? '');
        assert.ok(m, `${what}: a 206 without a Content-Range`);
        [first, last] = [Number(m[1]), Number(m[2])];
        assert.equal(Number(m[3]), content.length, `${what}: a 206 with an unproven total length`);
        const want = parseRange(header ?? null)!;
        const wantFirst = 'suffix' in want ? Math.max(0, content.length - want.suffix) : want.first;
        assert.equal(first, wantFirst, `${what}: a 206 for another range`);
      }
      assert.deepEqual(
        bytes,
        content.subarray(first, first + bytes.length),
        `${what}: released bytes that are not the content`,
      );
      if (error === undefined)
        assert.equal(bytes.length, last + 1 - first, `${what}: a successful read that is not the whole range`);
      else {
        assert.ok(error instanceof IntegrityError, `${what}: the body failed with ${String(error)}`);
        assert.ok(mismatches.length > 0, `${what}: a mid-stream mismatch that was not reported`);
      }
    }
  });
});
