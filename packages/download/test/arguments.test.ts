import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { createVerifiedFetch, download, downloadStream, memoryStore } from '../src/index.ts';

const root = 'af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262';
const url = 'http://127.0.0.1:1/file.bin';

describe('bad arguments throw at once, naming the argument and what arrived', () => {
  const cases: [string, () => unknown, ErrorConstructor, RegExp][] = [
    ['no sources', () => download([], { root }), RangeError, /sources must name at least one URL/],
    [
      'a source that is not a URL',
      () => download('not a url', { root }),
      TypeError,
      /sources must be a URL, got "not a url"/,
    ],
    ['a source of another scheme', () => download('file:///etc/passwd', { root }), TypeError, /http: or https:/],
    [
      'a source of another type',
      () => download([url, 3 as never], { root }),
      TypeError,
      /sources\[1\] must be a URL or a string, got 3/,
    ],
    [
      "a source's outboard",
      () => download({ url, outboard: 'x:' }, { root }),
      TypeError,
      /sources.outboard must be an http/,
    ],
    ['no options', () => download(url, undefined as never), TypeError, /opts must be an object/],
    [
      'root of 31 bytes',
      () => download(url, { root: new Uint8Array(31) }),
      RangeError,
      /opts.root must be 32 bytes, got 31/,
    ],
    [
      'root of 62 hex digits',
      () => download(url, { root: root.slice(2) }),
      RangeError,
      /opts.root must be 64 hex digits, got 62/,
    ],
    [
      'root not hex',
      () => download(url, { root: 'z'.repeat(64) }),
      TypeError,
      /opts.root must be 64 hex digits, got "zzz/,
    ],
    ['root a number', () => download(url, { root: 5 as never }), TypeError, /opts.root must be a Uint8Array .* got 5/],
    [
      'chunkGroupLog',
      () => download(url, { root, chunkGroupLog: 17 }),
      RangeError,
      /opts.chunkGroupLog must be an integer from 0 to 16, got 17/,
    ],
    [
      'concurrency',
      () => download(url, { root, concurrency: 0 }),
      RangeError,
      /opts.concurrency must be an integer from 1 to 64, got 0/,
    ],
    [
      'rangeSize',
      () => download(url, { root, rangeSize: 20000 }),
      RangeError,
      /opts.rangeSize must be a multiple of the group size \(16384 bytes\), got 20000/,
    ],
    [
      'strategy',
      () => download(url, { root, strategy: 'random' as never }),
      RangeError,
      /opts.strategy must be one of/,
    ],
    ['stallTimeout', () => download(url, { root, stallTimeout: -1 }), RangeError, /opts.stallTimeout/],
    ['store', () => download(url, { root, store: {} as never }), TypeError, /opts.store must be a DownloadStore/],
    ['signal', () => download(url, { root, signal: {} as never }), TypeError, /opts.signal must be an AbortSignal/],
    [
      'onProgress',
      () => download(url, { root, onProgress: 1 as never }),
      TypeError,
      /opts.onProgress must be a function/,
    ],
    [
      'onGroups',
      () => download(url, { root, onGroups: 'map' as never }),
      TypeError,
      /opts.onGroups must be a function, got/,
    ],
    [
      'createVerifiedFetch onGroups',
      () => createVerifiedFetch({ files: {}, onGroups: 1 as never }),
      TypeError,
      /opts.onGroups must be a function, got/,
    ],
    [
      'outboard',
      () => download(url, { root, outboard: 7 as never }),
      TypeError,
      /opts.outboard must be a URL or a string, got 7/,
    ],
    [
      'memoryStore maxBytes',
      () => memoryStore({ maxBytes: -1 }),
      RangeError,
      /opts.maxBytes must be a non-negative safe integer, got -1/,
    ],
    ['stream: root', () => downloadStream(url, { root: '' }), RangeError, /opts.root must be 64 hex digits, got 0/],
  ];
  for (const [name, call, type, message] of cases) {
    it(name, () => {
      assert.throws(call, (err: unknown) => {
        assert.ok(err instanceof type, `${String(err)} is not a ${type.name}`);
        assert.match((err as Error).message, message);
        return true;
      });
    });
  }
});
