// Every public entry point of the package refuses bad arguments at the boundary with a TypeError
// (a wrong type) or a RangeError (a bad value) whose message names the argument and what arrived.
import { blake3, bytesToHex } from '@blake3-web/core';
import { baoEncode } from '@blake3-web/stream';
import {
  baoRangeHandler,
  Blake3IntegrityPlugin,
  fetchVerifiedRange,
  firstOf,
  hashFromDigestHeader,
  hashFromHeader,
  hashFromManifest,
  hashFromPrecacheManifest,
  hashFromUrlPath,
  parseDigestField,
  parseRange,
} from '@blake3-web/workbox';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

const data = new Uint8Array(3000).map((_, i) => i % 251);
const hex = bytesToHex(blake3(data));
const outboard = baoEncode(data, { outboard: true }).encoded;
const base = 'https://example.com/';
const fetch = async () => new Response(data.slice());
const range = () => new Request(`${base}media/${hex}`, { headers: { range: 'bytes=0-9' } });

type Case = [what: string, call: () => unknown, error: 'TypeError' | 'RangeError', message: RegExp];

/** Each call throws (or rejects with) `error` whose message matches `message`. */
function refuses(cases: Case[]): void {
  for (const [what, call, name, message] of cases) {
    it(what, async () => {
      await assert.rejects(
        async () => call(),
        (err: Error) => {
          assert.equal(err.name, name, err.message);
          assert.match(err.message, message);
          return true;
        },
      );
    });
  }
}

describe('Blake3IntegrityPlugin options', () => {
  refuses([
    ['opts null', () => new Blake3IntegrityPlugin(null as never), 'TypeError', /^opts must be an object, got null$/],
    ['opts a string', () => new Blake3IntegrityPlugin('x' as never), 'TypeError', /^opts .*got a string of length 1$/],
    [
      'expectedHash a string',
      () => new Blake3IntegrityPlugin({ expectedHash: 'abc' as never }),
      'TypeError',
      /^opts\.expectedHash must be a function, got a string of length 3$/,
    ],
    [
      'verify an unknown mode',
      () => new Blake3IntegrityPlugin({ verify: 'later' as never }),
      'RangeError',
      /^opts\.verify must be 'before-use' or 'streaming', got "later"$/,
    ],
    [
      'verify not a string',
      () => new Blake3IntegrityPlugin({ verify: true as never }),
      'TypeError',
      /^opts\.verify must be .*got boolean$/,
    ],
    [
      'maxBytes a numeric string',
      () => new Blake3IntegrityPlugin({ maxBytes: '5' as never }),
      'TypeError',
      /^opts\.maxBytes must be a number, got a string of length 1$/,
    ],
    [
      'maxBytes fractional',
      () => new Blake3IntegrityPlugin({ maxBytes: 1.5 }),
      'RangeError',
      /^opts\.maxBytes .*got 1\.5$/,
    ],
    [
      'memoryBytes negative',
      () => new Blake3IntegrityPlugin({ memoryBytes: -1 }),
      'RangeError',
      /^opts\.memoryBytes .*got -1$/,
    ],
    [
      'onMismatch an object',
      () => new Blake3IntegrityPlugin({ onMismatch: {} as never }),
      'TypeError',
      /^opts\.onMismatch must be a function, got an object \(Object\)$/,
    ],
  ]);
});

describe('resolvers', () => {
  refuses([
    [
      'hashFromUrlPath without a Request',
      () => hashFromUrlPath('/a' as never),
      'TypeError',
      /^request must be a Request, got a string/,
    ],
    ['hashFromHeader a number', () => hashFromHeader(5 as never), 'TypeError', /^name must be a string, got 5$/],
    ['hashFromHeader empty', () => hashFromHeader(''), 'RangeError', /^name must be a header name .*got ""$/],
    ['hashFromHeader with a space', () => hashFromHeader('x blake3'), 'RangeError', /^name .*got "x blake3"$/],
    [
      'hashFromDigestHeader another field',
      () => hashFromDigestHeader('digest' as never),
      'RangeError',
      /^header must be 'repr-digest' or 'content-digest', got "digest"$/,
    ],
    [
      'hashFromDigestHeader null',
      () => hashFromDigestHeader(null as never),
      'TypeError',
      /^header must be .*got null$/,
    ],
    [
      'parseDigestField a number',
      () => parseDigestField(1 as never),
      'TypeError',
      /^the digest field must be a string, got 1$/,
    ],
    [
      'firstOf a string',
      () => firstOf(hashFromUrlPath, 'x' as never),
      'TypeError',
      /^resolvers\[1\] must be a function, got a string of length 1$/,
    ],
    [
      'hashFromManifest an array',
      () => hashFromManifest([] as never, base),
      'TypeError',
      /^manifest must be an object, got an Array of length 0$/,
    ],
    [
      'hashFromManifest a digest as bytes',
      () => hashFromManifest({ '/a.js': blake3(data) as never }, base),
      'TypeError',
      /^manifest\["\/a\.js"\] must be a string, got a Uint8Array of 32 bytes$/,
    ],
    [
      'hashFromManifest a digest that is not hex',
      () => hashFromManifest({ '/a.js': 'zz' }, base),
      'RangeError',
      /^manifest\["\/a\.js"\] must be an even number of hex digits, got "zz"$/,
    ],
    [
      'hashFromManifest a key that is no URL',
      () => hashFromManifest({ 'https://[': hex }, base),
      'TypeError',
      /^the manifest key "https:\/\/\[" must be a URL .*got "https:\/\/\["$/,
    ],
    [
      'hashFromManifest a base that is no URL',
      () => hashFromManifest({}, 'e.com'),
      'TypeError',
      /^base must be a URL, got "e\.com"$/,
    ],
    [
      'hashFromManifest a base of another type',
      () => hashFromManifest({}, 5 as never),
      'TypeError',
      /^base must be a URL or a string, got 5$/,
    ],
  ]);
});

describe('precache manifest entries', () => {
  refuses([
    [
      'entries an object',
      () => hashFromPrecacheManifest({} as never, base),
      'TypeError',
      /^entries must be an array .*got an object \(Object\)$/,
    ],
    ['an entry a number', () => hashFromPrecacheManifest([1 as never], base), 'TypeError', /^entries\[0\] .*got 1$/],
    [
      'an entry without url',
      () => hashFromPrecacheManifest([{ blake3: hex } as never], base),
      'TypeError',
      /^entries\[0\]\.url must be a string, got undefined$/,
    ],
    [
      'an entry whose url is no URL',
      () => hashFromPrecacheManifest([{ url: 'https://[' }], base),
      'TypeError',
      /^entries\[0\]\.url must be a URL .*got "https:\/\/\["$/,
    ],
    [
      'blake3 a number',
      () => hashFromPrecacheManifest(['a', { url: 'b', blake3: 7 as never }], base),
      'TypeError',
      /^entries\[1\]\.blake3 must be a string, got 7$/,
    ],
    [
      'blake3 not hex',
      () => hashFromPrecacheManifest([{ url: 'b', blake3: 'xyz' }], base),
      'RangeError',
      /^entries\[0\]\.blake3 .*got "xyz"$/,
    ],
    [
      'blake3 too short',
      () => hashFromPrecacheManifest([{ url: 'b', blake3: 'ab'.repeat(15) }], base),
      'RangeError',
      /^entries\[0\]\.blake3 .*at least 16 bytes, got 15$/,
    ],
    [
      'base a number',
      () => hashFromPrecacheManifest([], 1 as never),
      'TypeError',
      /^base must be a URL or a string, got 1$/,
    ],
  ]);
});

describe('baoRangeHandler options', () => {
  const good = { outboard: () => outboard, fetch };
  refuses([
    [
      'opts undefined',
      () => baoRangeHandler(undefined as never),
      'TypeError',
      /^opts must be an object, got undefined$/,
    ],
    [
      'outboard bytes instead of a function',
      () => baoRangeHandler({ outboard: outboard as never }),
      'TypeError',
      /^opts\.outboard must be a function, got a Uint8Array of \d+ bytes$/,
    ],
    [
      'expectedHash a string',
      () => baoRangeHandler({ ...good, expectedHash: hex as never }),
      'TypeError',
      /^opts\.expectedHash must be a function, got a string of length 64$/,
    ],
    [
      'onMismatch a number',
      () => baoRangeHandler({ ...good, onMismatch: 1 as never }),
      'TypeError',
      /^opts\.onMismatch must be a function, got 1$/,
    ],
    [
      'outboardCacheSize a string',
      () => baoRangeHandler({ ...good, outboardCacheSize: '16' as never }),
      'TypeError',
      /^opts\.outboardCacheSize must be a number, got a string of length 2$/,
    ],
    [
      'outboardCacheSize negative',
      () => baoRangeHandler({ ...good, outboardCacheSize: -1 }),
      'RangeError',
      /^opts\.outboardCacheSize .*got -1$/,
    ],
    [
      'windowBytes not whole KiB, at once',
      () => baoRangeHandler({ ...good, windowBytes: 1000 }),
      'RangeError',
      /^opts\.windowBytes must be a positive multiple of 1024, got 1000$/,
    ],
    [
      'maxRangeBytes not whole KiB, at once',
      () => baoRangeHandler({ ...good, maxRangeBytes: 1500 }),
      'RangeError',
      /^opts\.maxRangeBytes must be a positive multiple of 1024, got 1500$/,
    ],
    [
      'maxRangeBytes zero, at once',
      () => baoRangeHandler({ ...good, maxRangeBytes: 0 }),
      'RangeError',
      /^opts\.maxRangeBytes must be a positive multiple of 1024, got 0$/,
    ],
    [
      'windowBytes a string, at once',
      () => baoRangeHandler({ ...good, windowBytes: '1024' as never }),
      'TypeError',
      /^opts\.windowBytes must be a number, got a string of length 4$/,
    ],
    [
      'fetch a string, at once',
      () => baoRangeHandler({ ...good, fetch: 'fetch' as never }),
      'TypeError',
      /^opts\.fetch must be a function, got a string of length 5$/,
    ],
    [
      'maxOutboardBytes below a header',
      () => baoRangeHandler({ ...good, maxOutboardBytes: 7 }),
      'RangeError',
      /^opts\.maxOutboardBytes must be an integer from 8 .*got 7$/,
    ],
    [
      'an outboard function that returns a number',
      async () => {
        const handle = baoRangeHandler({ outboard: () => 5 as never, fetch });
        const event = {} as Parameters<typeof handle>[0]['event'];
        return handle({ request: range(), url: new URL(range().url), event, params: undefined });
      },
      'TypeError',
      /^what opts\.outboard returned must be a Uint8Array, a URL or a Request, got 5$/,
    ],
  ]);
});

describe('fetchVerifiedRange', () => {
  refuses([
    [
      'request a URL string',
      () => fetchVerifiedRange('https://e.com/' as never, hex, { outboard, fetch }),
      'TypeError',
      /^request must be a Request, got a string of length 14$/,
    ],
    [
      'hash a number',
      () => fetchVerifiedRange(range(), 5 as never, { outboard, fetch }),
      'TypeError',
      /^hash must be a hex string or a Uint8Array, got 5$/,
    ],
    [
      'hash too short',
      () => fetchVerifiedRange(range(), 'abcd', { outboard, fetch }),
      'RangeError',
      /^hash .*at least 16 bytes, got 2$/,
    ],
    [
      'opts null',
      () => fetchVerifiedRange(range(), hex, null as never),
      'TypeError',
      /^opts must be an object, got null$/,
    ],
    [
      'outboard missing',
      () => fetchVerifiedRange(range(), hex, { fetch } as never),
      'TypeError',
      /^opts\.outboard must be a Uint8Array, a URL or a Request, got undefined$/,
    ],
    [
      'outboard an ArrayBuffer',
      () => fetchVerifiedRange(range(), hex, { outboard: outboard.buffer as never, fetch }),
      'TypeError',
      /^opts\.outboard .*got an object \(ArrayBuffer\)$/,
    ],
    [
      'fetch an object',
      () => fetchVerifiedRange(range(), hex, { outboard, fetch: {} as never }),
      'TypeError',
      /^opts\.fetch must be a function, got an object \(Object\)$/,
    ],
    [
      'windowBytes zero',
      () => fetchVerifiedRange(range(), hex, { outboard, fetch, windowBytes: 0 }),
      'RangeError',
      /^opts\.windowBytes .*got 0$/,
    ],
    [
      'maxOutboardBytes a bigint',
      () => fetchVerifiedRange(range(), hex, { outboard, fetch, maxOutboardBytes: 64n as never }),
      'TypeError',
      /^opts\.maxOutboardBytes must be a number, got 64n$/,
    ],
  ]);
});

describe('parseRange', () => {
  refuses([
    ['a number', () => parseRange(5 as never), 'TypeError', /^header must be a string or null, got 5$/],
    [
      'undefined',
      () => parseRange(undefined as never),
      'TypeError',
      /^header must be a string or null, got undefined$/,
    ],
  ]);
  it('still reads a header or its absence', () => {
    assert.deepEqual(parseRange('bytes=1-2'), { first: 1, last: 2 });
    assert.equal(parseRange(null), undefined);
  });
});
