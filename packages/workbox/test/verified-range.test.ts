import { blake3, bytesToHex } from '@blake3-web/core';
import { baoEncode, baoOutboardSize, IntegrityError } from '@blake3-web/stream';
import { baoRangeHandler, fetchVerifiedRange, parseRange } from '@blake3-web/workbox';
import { Random, readAll, testSeed } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

const rng = new Random(testSeed());
const data = rng.bytes(300_000);
const hex = bytesToHex(blake3(data));
const outboard = baoEncode(data, { outboard: true }).encoded;
const TAMPERED = 150_000;
const base = 'https://example.com/media/';

/**
 * An origin serving `data` at `/media/<hex>` with Range support and its outboard at `.obao`;
 * `?tamper=1` flips byte TAMPERED, `?tamper=<n>` byte n, `?ignore-range=1` answers 200 in full.
 */
function origin(content = data, obao = outboard) {
  const log: { url: string; range: string | null }[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    log.push({ url: url.pathname + url.search, range: request.headers.get('range') });
    if (request.headers.has('x-unavailable')) return new Response('unavailable', { status: 503 });
    if (url.pathname.endsWith('.obao')) return new Response(obao.slice());
    let body = content.slice();
    const tamper = url.searchParams.get('tamper');
    if (tamper !== null) body[tamper === '1' ? TAMPERED : Number(tamper)] ^= 0x10;
    const range = parseRange(request.headers.get('range'));
    if (!range || url.searchParams.has('ignore-range')) return new Response(body);
    const first = 'suffix' in range ? body.length - range.suffix : range.first;
    const last = 'suffix' in range ? body.length - 1 : Math.min(range.last ?? body.length - 1, body.length - 1);
    body = body.slice(first, last + 1);
    return new Response(body, {
      status: 206,
      headers: { 'content-range': `bytes ${first}-${last}/${content.length}`, 'content-type': 'video/webm' },
    });
  };
  return { fetch, log };
}

const get = (range?: string, query = '', headers: Record<string, string> = {}) =>
  new Request(`${base}${hex}${query}`, { headers: range === undefined ? headers : { ...headers, range } });

/** Reads a body with a reader, keeping what arrived before an error. */
const drain = (response: Response) => readAll(response.body!);

describe('fetchVerifiedRange', () => {
  it('answers single ranges with a 206 of exactly the requested, verified bytes', async () => {
    const cases: [string, number, number][] = [
      ['bytes=0-0', 0, 0],
      ['bytes=1000-1100', 1000, 1100],
      ['bytes=149000-151999', 149_000, 151_999],
      ['bytes=299000-', 299_000, 299_999],
      ['bytes=-77', 299_923, 299_999],
      ['bytes=5-999999', 5, 299_999],
      ['bytes=0-', 0, 299_999],
    ];
    for (let i = 0; i < 12; i++) {
      const first = rng.int(0, data.length - 1);
      const last = rng.int(first, data.length - 1);
      cases.push([`bytes=${first}-${last}`, first, last]);
    }
    for (const [header, first, last] of cases) {
      const { fetch } = origin();
      const res = await fetchVerifiedRange(get(header), hex, {
        outboard: `${base}${hex}.obao`,
        fetch,
        windowBytes: 64 * 1024,
      });
      assert.equal(res.status, 206, header);
      assert.equal(res.headers.get('content-range'), `bytes ${first}-${last}/${data.length}`);
      assert.equal(res.headers.get('content-length'), String(last + 1 - first));
      assert.equal(res.headers.get('content-type'), 'video/webm');
      assert.deepEqual(new Uint8Array(await res.arrayBuffer()), data.subarray(first, last + 1), header);
    }
  });

  it('asks the server for the range widened to whole chunks, and for the whole final chunk to prove the length', async () => {
    const { fetch, log } = origin();
    await (await fetchVerifiedRange(get('bytes=1500-2600'), hex, { outboard, fetch })).arrayBuffer();
    assert.deepEqual(log, [
      { url: `/media/${hex}`, range: 'bytes=299008-300031' },
      { url: `/media/${hex}`, range: 'bytes=1024-3071' },
    ]);
  });

  it('maxRangeBytes answers the whole range, asking the server for it a piece at a time', async () => {
    const maxRangeBytes = 64 * 1024;
    for (const [header, first, last] of [
      // A media element's open range, from a chunk boundary and from inside a chunk.
      ['bytes=0-', 0, 299_999],
      ['bytes=100000-', 100_000, 299_999],
      ['bytes=5-200000', 5, 200_000],
      // Within the limit: one request.
      ['bytes=1000-2000', 1000, 2000],
      ['bytes=280000-', 280_000, 299_999],
      ['bytes=-70000', 230_000, 299_999],
    ] as const) {
      const { fetch, log } = origin();
      const res = await fetchVerifiedRange(get(header), hex, {
        outboard,
        fetch,
        maxRangeBytes,
        windowBytes: 16 * 1024,
      });
      assert.equal(res.status, 206, header);
      assert.equal(res.headers.get('content-range'), `bytes ${first}-${last}/${data.length}`, header);
      assert.equal(res.headers.get('content-length'), String(last + 1 - first), header);
      assert.deepEqual(new Uint8Array(await res.arrayBuffer()), data.subarray(first, last + 1), header);
      // After the final chunk's request: the range widened to whole chunks, in pieces of at most
      // maxRangeBytes, each starting where the one before ended.
      const pieces = log.slice(1).map((e) => /^bytes=(\d+)-(\d+)$/.exec(e.range!)!.slice(1).map(Number));
      assert.equal(pieces[0]![0], first - (first % 1024), header);
      assert.equal(pieces.at(-1)![1], Math.min(data.length, Math.ceil((last + 1) / 1024) * 1024) - 1, header);
      for (const [i, [a, b]] of pieces.entries()) {
        assert.ok(b! + 1 - a! <= maxRangeBytes, `${header}: piece ${a}-${b}`);
        if (i > 0) assert.equal(a, pieces[i - 1]![1]! + 1, header);
      }
    }
  });

  it('maxRangeBytes asks for the next piece only when the body is read up to it', async () => {
    const { fetch, log } = origin();
    const res = await fetchVerifiedRange(get('bytes=0-'), hex, {
      outboard,
      fetch,
      maxRangeBytes: 64 * 1024,
      windowBytes: 16 * 1024,
    });
    const reader = res.body!.getReader();
    let read = 0;
    while (read < 64 * 1024) read += (await reader.read()).value!.length;
    // The final chunk's request (a whole chunk asked for, the server trims it at the end) and the
    // first piece: the answer's first 64 KiB came from it.
    assert.deepEqual(
      log.map((e) => e.range),
      ['bytes=299008-300031', 'bytes=0-65535'],
    );
    await reader.cancel();
    assert.equal(log.length, 2, 'a cancelled body asks for nothing more');
  });

  it("drops a media player's Icy-MetaData from what it asks the server (a header no CORS preflight of a CDN allows)", async () => {
    const { fetch } = origin();
    const seen: (string | null)[] = [];
    const watching = async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      if (!request.url.endsWith('.obao')) seen.push(request.headers.get('icy-metadata'));
      return fetch(request);
    };
    for (const range of ['bytes=1000-', undefined]) {
      const res = await fetchVerifiedRange(get(range, '', { 'icy-metadata': '1', accept: '*/*' }), hex, {
        outboard,
        fetch: watching,
      });
      assert.ok(res.ok, String(range));
      await res.arrayBuffer();
    }
    assert.ok(seen.length >= 3);
    assert.deepEqual(
      seen,
      seen.map(() => null),
    );
  });

  it('a tampered byte in the range, or in a chunk the range touches, rejects with an IntegrityError', async () => {
    const { fetch } = origin();
    for (const header of [
      'bytes=149990-150010',
      `bytes=${TAMPERED - (TAMPERED % 1024)}-${TAMPERED - (TAMPERED % 1024)}`,
      'bytes=100000-200000',
    ]) {
      await assert.rejects(
        fetchVerifiedRange(get(header, '?tamper=1'), hex, { outboard, fetch }),
        IntegrityError,
        header,
      );
    }
    // Only the chunks a range needs are checked: a range elsewhere is served.
    const far = await fetchVerifiedRange(get('bytes=0-9999', '?tamper=1'), hex, { outboard, fetch });
    assert.deepEqual(new Uint8Array(await far.arrayBuffer()), data.subarray(0, 10_000));
  });

  it('a long range streams window by window and errors at the first bad window, after only verified bytes', async () => {
    const { fetch } = origin();
    const windowBytes = 32 * 1024;
    const res = await fetchVerifiedRange(get('bytes=1000-', '?tamper=1'), hex, { outboard, fetch, windowBytes });
    assert.equal(res.status, 206);
    const { bytes, error } = await drain(res);
    assert.ok(error instanceof IntegrityError);
    // Windows start at chunk 0 (1000 widened down); the bad byte is in window 4 (131072-163839).
    assert.equal(bytes.length, 4 * windowBytes - 1000);
    assert.deepEqual(bytes, data.subarray(1000, 4 * windowBytes));
  });

  it('a bad outboard, or one claiming another length, is an IntegrityError', async () => {
    const flipped = outboard.slice();
    flipped[8 + 20] ^= 1; // the root parent
    const short = baoEncode(data.subarray(0, 299_000), { outboard: true }).encoded; // same tree size, other length
    const longer = baoEncode(new Uint8Array(310_000), { outboard: true }).encoded;
    for (const [name, bad] of [
      ['flipped', flipped],
      ['other length', short],
      ['other size', longer],
      ['truncated', outboard.subarray(0, 100)],
      ['empty', new Uint8Array(0)],
    ] as const) {
      const { fetch, log } = origin(data, bad);
      await assert.rejects(
        fetchVerifiedRange(get('bytes=0-99'), hex, { outboard: `${base}${hex}.obao`, fetch }),
        { name: 'IntegrityError', message: /^the Bao outboard / },
        name,
      );
      // Proven whole before any content is asked for.
      assert.deepEqual(
        log.map((l) => l.url),
        [`/media/${hex}.obao`],
        name,
      );
    }
  });

  it('an outboard whose header lies about the final chunk is refused by that chunk, not served', async () => {
    for (const delta of [-5, 20, -991]) {
      const lying = outboard.slice();
      new DataView(lying.buffer).setBigUint64(0, BigInt(data.length + delta), true);
      const { fetch, log } = origin(data, lying);
      await assert.rejects(
        fetchVerifiedRange(get('bytes=0-99'), hex, { outboard: `${base}${hex}.obao`, fetch }),
        {
          name: 'IntegrityError',
          message: new RegExp(
            `header claims ${data.length + delta} content bytes; the content's final chunk proves ${data.length}`,
          ),
        },
        `${delta}`,
      );
      // Only the final chunk was asked for: no range was served.
      assert.deepEqual(
        log.map((l) => l.range),
        [null, 'bytes=299008-300031'],
        `${delta}`,
      );
    }
  });

  it('serves a server that ignores Range, a 416 past the end, and passes error statuses through', async () => {
    const { fetch } = origin();
    const full = await fetchVerifiedRange(get('bytes=70000-70009', '?ignore-range=1'), hex, { outboard, fetch });
    assert.equal(full.status, 206);
    assert.deepEqual(new Uint8Array(await full.arrayBuffer()), data.subarray(70_000, 70_010));
    for (const header of ['bytes=300000-', 'bytes=400000-400001', 'bytes=-0']) {
      const res = await fetchVerifiedRange(get(header), hex, { outboard, fetch });
      assert.equal(res.status, 416, header);
      assert.equal(res.headers.get('content-range'), 'bytes */300000');
    }
    const down = await fetchVerifiedRange(get('bytes=0-9', '', { 'x-unavailable': '1' }), hex, { outboard, fetch });
    assert.equal(down.status, 503);
  });

  it('without a single range: the whole content, verified as it streams', async () => {
    const { fetch } = origin();
    for (const header of [undefined, 'bytes=0-1,5-9', 'items=0-1']) {
      const res = await fetchVerifiedRange(get(header), hex, { outboard, fetch });
      assert.equal(res.status, 200);
      assert.deepEqual(new Uint8Array(await res.arrayBuffer()), data);
    }
    const bad = await fetchVerifiedRange(get(undefined, '?tamper=1'), hex, { outboard, fetch });
    const { bytes, error } = await drain(bad);
    assert.ok(error instanceof IntegrityError);
    assert.ok(bytes.length <= TAMPERED);
    assert.deepEqual(bytes, data.subarray(0, bytes.length));
  });

  it('empty content: every range is a 416, and its outboard is still checked against the hash', async () => {
    const empty = new Uint8Array(0);
    const emptyHex = bytesToHex(blake3(empty));
    const { fetch } = origin(empty, baoEncode(empty, { outboard: true }).encoded);
    const res = await fetchVerifiedRange(
      new Request(`${base}${emptyHex}`, { headers: { range: 'bytes=0-' } }),
      emptyHex,
      { outboard: `${base}${emptyHex}.obao`, fetch },
    );
    assert.equal(res.status, 416);
    await assert.rejects(
      fetchVerifiedRange(new Request(`${base}${emptyHex}`, { headers: { range: 'bytes=0-' } }), hex, {
        outboard: `${base}${emptyHex}.obao`,
        fetch,
      }),
      IntegrityError,
    );
  });

  it('rejects bad arguments clearly', async () => {
    const { fetch } = origin();
    await assert.rejects(fetchVerifiedRange('x' as never, hex, { outboard, fetch }), {
      name: 'TypeError',
      message: /request must be a Request/,
    });
    await assert.rejects(fetchVerifiedRange(get('bytes=0-1'), hex, { outboard, fetch, windowBytes: 1000 }), {
      name: 'RangeError',
      message: /opts.windowBytes .* 1000/,
    });
    await assert.rejects(fetchVerifiedRange(get('bytes=0-1'), hex, { outboard: 5 as never, fetch }), {
      name: 'TypeError',
      message: /opts.outboard/,
    });
    await assert.rejects(fetchVerifiedRange(get('bytes=0-1'), 'abc', { outboard, fetch }), { name: 'RangeError' });
  });
});

describe('baoRangeHandler', () => {
  const event = {} as Parameters<ReturnType<typeof baoRangeHandler>>[0]['event'];
  const url = new URL(`${base}${hex}`);

  it("serves verified ranges, fetching each outboard once; a mismatch is a network error, reported as the content's, and the outboard is kept", async () => {
    const { fetch, log } = origin();
    const mismatches: string[] = [];
    const handle = baoRangeHandler({
      outboard: (request) => `${request.url.split('?')[0]}.obao`,
      fetch,
      onMismatch: ({ request, part }) => mismatches.push(`${request.url} ${part}`),
    });
    const a = await handle({ request: get('bytes=10-19'), url, event, params: undefined });
    assert.deepEqual(new Uint8Array(await a.arrayBuffer()), data.subarray(10, 20));
    const b = await handle({ request: get('bytes=200000-200009'), url, event, params: undefined });
    assert.deepEqual(new Uint8Array(await b.arrayBuffer()), data.subarray(200_000, 200_010));
    assert.equal(log.filter((l) => l.url.endsWith('.obao')).length, 1);
    const bad = await handle({ request: get('bytes=150000-150001', '?tamper=1'), url, event, params: undefined });
    assert.equal(bad.type, 'error');
    assert.deepEqual(mismatches, [`${base}${hex}?tamper=1 content`]);
    await (await handle({ request: get('bytes=0-0'), url, event, params: undefined })).arrayBuffer();
    assert.equal(log.filter((l) => l.url.endsWith('.obao')).length, 1);
  });

  it('a refused range asked for again and again (a media element retrying) fetches the outboard once', async () => {
    const { fetch, log } = origin();
    const parts: string[] = [];
    const handle = baoRangeHandler({
      outboard: (request) => `${request.url.split('?')[0]}.obao`,
      fetch,
      onMismatch: ({ part }) => parts.push(part),
    });
    const tries = 50;
    for (let i = 0; i < tries; i++) {
      const res = await handle({ request: get(`bytes=${TAMPERED - 10}-`, '?tamper=1'), url, event, params: undefined });
      assert.equal(res.type, 'error', `try ${i}`);
    }
    const outboardRequests = log.filter((l) => l.url.endsWith('.obao')).length;
    assert.equal(
      outboardRequests,
      1,
      `${outboardRequests * outboard.length} outboard bytes for a ${outboard.length}-byte outboard`,
    );
    assert.deepEqual(parts, Array(tries).fill('content'));
    // Each try costs its final chunk and its range, never the outboard.
    assert.equal(log.length, 1 + 2 * tries);
    const good = await handle({ request: get('bytes=0-99'), url, event, params: undefined });
    assert.deepEqual(new Uint8Array(await good.arrayBuffer()), data.subarray(0, 100));
    assert.equal(log.filter((l) => l.url.endsWith('.obao')).length, 1);
  });

  it("a corrupted outboard is refused on first use, named as the outboard's, serves nothing, and is not fetched again", async () => {
    const flipped = outboard.slice();
    flipped[8 + 64 * 40 + 3] ^= 1; // a parent deep in the tree, which no range near byte 0 touches
    const lying = outboard.slice();
    new DataView(lying.buffer).setBigUint64(0, BigInt(data.length - 5), true);
    const other = baoEncode(rng.bytes(data.length), { outboard: true }).encoded;
    for (const [name, bad, contentAsked] of [
      ['a parent flipped', flipped, 0],
      ['truncated', outboard.subarray(0, outboard.length - 64), 0],
      ["another file's", other, 0],
      ['a header that lies', lying, 1],
    ] as const) {
      const { fetch, log } = origin(data, bad);
      const seen: { part: string; message: string }[] = [];
      const handle = baoRangeHandler({
        outboard: (request) => `${request.url}.obao`,
        fetch,
        onMismatch: ({ error, part }) => seen.push({ part, message: error.message }),
      });
      for (let i = 0; i < 5; i++) {
        const res = await handle({ request: get('bytes=0-99'), url, event, params: undefined });
        assert.equal(res.type, 'error', name);
      }
      assert.equal(seen.length, 5, name);
      for (const { part, message } of seen) {
        assert.equal(part, 'outboard', name);
        assert.match(message, /^the Bao outboard/, name);
      }
      assert.equal(log.filter((l) => l.url.endsWith('.obao')).length, 1, name);
      // Nothing but the final chunk that found a lying header out was asked of the content.
      assert.equal(log.filter((l) => !l.url.endsWith('.obao')).length, contentAsked, name);
    }
  });

  it('passes requests without a digest to the network, and rejects bad options', async () => {
    const { fetch, log } = origin();
    const handle = baoRangeHandler({ outboard: () => outboard, fetch });
    const res = await handle({
      request: new Request(`${base}not-a-digest`, { headers: { range: 'bytes=0-1' } }),
      url,
      event,
      params: undefined,
    });
    assert.equal(res.status, 206);
    assert.deepEqual(log, [{ url: '/media/not-a-digest', range: 'bytes=0-1' }]);
    assert.throws(() => baoRangeHandler({ outboard: 'x' as never }), {
      name: 'TypeError',
      message: /opts.outboard must be a function/,
    });
    assert.throws(() => baoRangeHandler({ outboard: () => outboard, outboardCacheSize: -1 }), {
      name: 'RangeError',
      message: /outboardCacheSize/,
    });
  });
});

describe('parseRange', () => {
  it('reads one byte range and nothing else', () => {
    assert.deepEqual(parseRange('bytes=0-499'), { first: 0, last: 499 });
    assert.deepEqual(parseRange('bytes=500-'), { first: 500 });
    assert.deepEqual(parseRange('bytes=-500'), { suffix: 500 });
    assert.deepEqual(parseRange(' Bytes = 1 - 2 '), { first: 1, last: 2 });
    for (const bad of [null, '', 'bytes=-', 'bytes=5-1', 'bytes=0-1,3-4', 'items=0-1', 'bytes=a-b'])
      assert.equal(parseRange(bad), undefined, String(bad));
  });
});

describe('ranges fail closed', () => {
  const event = {} as Parameters<ReturnType<typeof baoRangeHandler>>[0]['event'];
  const url = new URL(`${base}${hex}`);
  const size = baoOutboardSize(data.length);

  /** An outboard that goes on and on after the real one, counting what was taken from it. */
  function endlessOutboard() {
    const seen = { bytes: 0 };
    let sent = 0;
    const body = () =>
      new ReadableStream<Uint8Array>({
        pull: (c) => {
          const chunk = sent < outboard.length ? outboard.slice(sent, sent + 4096) : new Uint8Array(65_536);
          sent += chunk.length;
          seen.bytes += chunk.length;
          // Stops at 64 MiB so that a reader without a bound ends too (and the test can say how far it
          // read); the stream pulls a chunk or two ahead of its reader.
          if (seen.bytes > 64 * 2 ** 20) c.close();
          else c.enqueue(chunk);
        },
      });
    const { fetch: content } = origin();
    const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      return request.url.endsWith('.obao') ? new Response(body()) : content(request);
    };
    return { fetch, seen };
  }

  it('an outboard is read up to the size its header calls for plus one byte, and trailing data fails', async () => {
    const { fetch, seen } = endlessOutboard();
    await assert.rejects(fetchVerifiedRange(get('bytes=0-99'), hex, { outboard: `${base}${hex}.obao`, fetch }), {
      name: 'IntegrityError',
      message: /goes on past the \d+ bytes/,
    });
    assert.ok(seen.bytes <= size + 3 * 65_536, `read ${seen.bytes} outboard bytes for a ${size}-byte outboard`);
    const handlerCase = endlessOutboard();
    const handle = baoRangeHandler({ outboard: (request) => `${request.url}.obao`, fetch: handlerCase.fetch });
    assert.equal((await handle({ request: get('bytes=0-99'), url, event, params: undefined })).type, 'error');
    assert.ok(handlerCase.seen.bytes <= size + 3 * 65_536, `read ${handlerCase.seen.bytes} outboard bytes`);
  });

  it('a header claiming more than maxOutboardBytes allows is refused before the outboard is read', async () => {
    const forged = outboard.slice();
    new DataView(forged.buffer).setBigUint64(0, 1n << 40n, true);
    const { fetch } = origin(data, forged);
    await assert.rejects(fetchVerifiedRange(get('bytes=0-99'), hex, { outboard: `${base}${hex}.obao`, fetch }), {
      name: 'RangeError',
      message: /maxOutboardBytes \(67108864\)/,
    });
    await assert.rejects(
      fetchVerifiedRange(get('bytes=0-99'), hex, {
        outboard: `${base}${hex}.obao`,
        fetch: origin().fetch,
        maxOutboardBytes: size - 1,
      }),
      { name: 'RangeError' },
    );
    const exact = await fetchVerifiedRange(get('bytes=0-99'), hex, {
      outboard: `${base}${hex}.obao`,
      fetch: origin().fetch,
      maxOutboardBytes: size,
    });
    assert.deepEqual(new Uint8Array(await exact.arrayBuffer()), data.subarray(0, 100));
    assert.throws(() => baoRangeHandler({ outboard: () => outboard, maxOutboardBytes: 7 }), {
      name: 'RangeError',
      message: /opts\.maxOutboardBytes .* 7$/,
    });
  });

  it("a mismatch found mid-stream is reported as the content's and keeps the cached outboard", async () => {
    const { fetch, log } = origin();
    const mismatches: string[] = [];
    const handle = baoRangeHandler({
      outboard: (request) => `${request.url.split('?')[0]}.obao`,
      fetch,
      windowBytes: 32 * 1024,
      onMismatch: ({ request, error, part }) => mismatches.push(`${request.url} ${error.name} ${part}`),
    });
    const res = await handle({ request: get('bytes=1000-', '?tamper=1'), url, event, params: undefined });
    assert.equal(res.status, 206);
    const { bytes, error } = await drain(res);
    assert.ok(error instanceof IntegrityError);
    assert.deepEqual(bytes, data.subarray(1000, 1000 + bytes.length));
    assert.deepEqual(mismatches, [`${base}${hex}?tamper=1 IntegrityError content`]);
    // The outboard, proven when it was fetched, is kept for the next request.
    await (await handle({ request: get('bytes=0-0'), url, event, params: undefined })).arrayBuffer();
    assert.equal(log.filter((l) => l.url.endsWith('.obao')).length, 1);
    // The same for the whole content, verified as it streams.
    const whole = await handle({ request: get(undefined, '?tamper=1'), url, event, params: undefined });
    assert.ok((await drain(whole)).error instanceof IntegrityError);
    assert.equal(mismatches[1], `${base}${hex}?tamper=1 IntegrityError content`);
    await (await handle({ request: get('bytes=0-0'), url, event, params: undefined })).arrayBuffer();
    assert.equal(log.filter((l) => l.url.endsWith('.obao')).length, 1);
  });

  it('an opaque answer is refused: nothing says it is not the content', async () => {
    const opaque = Object.defineProperties(new Response(null, { status: 200 }), {
      type: { value: 'opaque' },
      status: { value: 0 },
      ok: { value: false },
    });
    const { fetch: content } = origin();
    const fetch = async (input: RequestInfo | URL, init?: RequestInit) =>
      new Request(input, init).url.endsWith('.obao') ? content(input, init) : opaque;
    await assert.rejects(
      fetchVerifiedRange(get('bytes=0-9'), hex, { outboard: `${base}${hex}.obao`, fetch }),
      IntegrityError,
    );
  });

  it('a 206 to a request without Range is refused', async () => {
    const { fetch: content } = origin();
    const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      const response = await content(input, init);
      return new Request(input, init).url.endsWith('.obao') ? response : new Response(response.body, { status: 206 });
    };
    await assert.rejects(fetchVerifiedRange(get(), hex, { outboard: `${base}${hex}.obao`, fetch }), IntegrityError);
  });
});
