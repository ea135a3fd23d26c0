import { backend, blake3, bytesToHex, hexToBytes, isBackendAvailable, ready, setBackend } from '@blake3-web/core';
import { paint, Random, testSeed } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { forEachBackend } from './_backends.ts';

forEachBackend('Hasher', () => {
  it('digest() does not consume the state: hashing continues after it', () => {
    const input = paint(5000);
    const h = blake3.create();
    h.update(input.subarray(0, 2000));
    assert.deepEqual(h.digest(), blake3(input.subarray(0, 2000)));
    h.update(input.subarray(2000));
    assert.deepEqual(h.digest(), blake3(input));
    assert.deepEqual(h.digest(), blake3(input));
  });

  it('digestInto fills any length; reader() is independent of later updates', () => {
    const h = blake3.create().update('abc');
    const out = new Uint8Array(100);
    h.digestInto(out);
    assert.deepEqual(out, blake3('abc', { dkLen: 100 }));
    const reader = h.reader();
    h.update('more');
    assert.deepEqual(reader.read(100), blake3('abc', { dkLen: 100 }));
  });

  it('reset() forgets input but keeps the mode and dkLen; clone() is independent', () => {
    const key = new Uint8Array(32).fill(1);
    const h = blake3.create({ key, dkLen: 40 }).update(paint(3000));
    const c = h.clone();
    h.reset().update('x');
    assert.deepEqual(h.digest(), blake3('x', { key, dkLen: 40 }));
    assert.deepEqual(c.digest(), blake3(paint(3000), { key, dkLen: 40 }));
    c.update('y');
    assert.deepEqual(h.digest(), blake3('x', { key, dkLen: 40 }));
  });

  it('any pattern of update sizes gives the one-shot hash', () => {
    const rng = new Random(testSeed());
    const input = rng.bytes(300_000);
    const expected = blake3(input);
    for (const sizes of [[1], [63], [64], [65], [1000], [65536], [1 << 20], [1, 1023, 1024, 1025, 4095, 4097]]) {
      const h = blake3.create();
      for (let i = 0, k = 0; i < input.length; k++) {
        const n = sizes[k % sizes.length];
        h.update(input.subarray(i, i + n));
        i += n;
      }
      assert.deepEqual(h.digest(), expected, `updates of ${sizes}`);
    }
  });

  it('the XOF seeks anywhere, including past 2^32 blocks, and reads the same bytes as a long read', () => {
    const reader = blake3.create().update('seek').reader();
    const long = reader.read(1000);
    reader.position = 500n;
    assert.deepEqual(reader.read(500), long.subarray(500));
    reader.position = 3;
    assert.deepEqual(reader.read(0), new Uint8Array(0));
    assert.equal(reader.position, 3n);
    const far = (1n << 38n) - 10n;
    reader.position = far;
    const straddle = reader.read(100);
    reader.position = far + 50n;
    assert.deepEqual(reader.read(50), straddle.subarray(50));
    reader.position = 1n << 64n;
    assert.deepEqual(reader.read(0), new Uint8Array(0));
  });
});

describe('inputs', () => {
  it('strings are UTF-8', () => {
    assert.deepEqual(blake3('héllo ✓'), blake3(new TextEncoder().encode('héllo ✓')));
    assert.equal(bytesToHex(blake3('')), 'af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262');
  });

  it('any ArrayBufferView, an ArrayBuffer, odd offsets and SharedArrayBuffer views hash their bytes', () => {
    const bytes = paint(4099);
    const expected = blake3(bytes);
    const odd = new Uint8Array(bytes.length + 3);
    odd.set(bytes, 3);
    assert.deepEqual(blake3(odd.subarray(3)), expected);
    assert.deepEqual(blake3(new DataView(odd.buffer, 3, bytes.length)), expected);
    assert.deepEqual(blake3(bytes.buffer), expected);
    const aligned = new Uint8Array(4100);
    aligned.set(bytes);
    assert.deepEqual(blake3(new Uint16Array(aligned.buffer, 0, 2050)), blake3(aligned));
    if (typeof SharedArrayBuffer === 'function') {
      const shared = new Uint8Array(new SharedArrayBuffer(bytes.length));
      shared.set(bytes);
      assert.deepEqual(blake3(shared), expected);
      assert.deepEqual(blake3.create().update(shared).digest(), expected);
    }
  });

  it('dkLen 0 gives an empty output; large dkLen works', () => {
    assert.equal(blake3('x', { dkLen: 0 }).length, 0);
    const big = blake3('x', { dkLen: 100_000 });
    assert.deepEqual(big.subarray(0, 32), blake3('x'));
  });
});

describe('bad input is rejected with a clear error', () => {
  const cases: [string, () => unknown, string, RegExp][] = [
    ['a number as input', () => blake3(42 as never), 'TypeError', /input must be .*got 42/],
    ['null as input', () => blake3(null as never), 'TypeError', /input .*got null/],
    ['an array as input', () => blake3([1, 2] as never), 'TypeError', /input .*Array/],
    ['an update with an object', () => blake3.create().update({} as never), 'TypeError', /input/],
    ['opts that are not an object', () => blake3('x', 5 as never), 'TypeError', /opts must be an object/],
    [
      'a 31-byte key',
      () => blake3('x', { key: new Uint8Array(31) }),
      'RangeError',
      /opts.key must be 32 bytes, got 31/,
    ],
    ['a string key', () => blake3('x', { key: 'k'.repeat(32) as never }), 'TypeError', /opts.key must be a Uint8Array/],
    [
      'key and context',
      () => blake3('x', { key: new Uint8Array(32), context: 'c' }),
      'TypeError',
      /key and opts.context/,
    ],
    ['a non-string context', () => blake3('x', { context: 1 as never }), 'TypeError', /opts.context must be a string/],
    ['a negative dkLen', () => blake3('x', { dkLen: -1 }), 'RangeError', /opts.dkLen .*-1/],
    ['a fractional dkLen', () => blake3('x', { dkLen: 1.5 }), 'RangeError', /opts.dkLen/],
    ['a string dkLen', () => blake3('x', { dkLen: '32' as never }), 'TypeError', /opts.dkLen must be a number/],
    ['a negative read', () => blake3.create().reader().read(-1), 'RangeError', /n must be/],
    [
      'a fractional position',
      () => {
        blake3.create().reader().position = 1.5 as never;
      },
      'RangeError',
      /position/,
    ],
    [
      'a negative position',
      () => {
        blake3.create().reader().position = -1n;
      },
      'RangeError',
      /position/,
    ],
    [
      'a position past the end',
      () => {
        blake3.create().reader().position = (1n << 64n) + 1n;
      },
      'RangeError',
      /position must be at most 2\^64/,
    ],
    [
      'a read past the end',
      () => {
        const r = blake3.create().reader();
        r.position = (1n << 64n) - 1n;
        r.read(2);
      },
      'RangeError',
      /2\^64/,
    ],
    [
      'digestInto with a non-array',
      () => blake3.create().digestInto([] as never),
      'TypeError',
      /out must be a Uint8Array/,
    ],
    ['hex of a string', () => bytesToHex('ab' as never), 'TypeError', /bytes must be a Uint8Array/],
    ['odd-length hex', () => hexToBytes('abc'), 'RangeError', /even number/],
    ['non-hex digits', () => hexToBytes('zz'), 'RangeError', /non-hex character "z" at index 0/],
    ['an unknown backend', () => setBackend('gpu' as never), 'RangeError', /backend must be one of/],
  ];
  for (const [what, fn, name, message] of cases) {
    it(what, () => assert.throws(fn, (err: Error) => err.name === name && message.test(err.message)));
  }
});

describe('hex and backends', () => {
  it('hex round-trips every byte, either case', () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    assert.deepEqual(hexToBytes(bytesToHex(all)), all);
    assert.deepEqual(hexToBytes('ABcd'), Uint8Array.of(0xab, 0xcd));
  });

  it('backend() reports an available backend, ready() resolves, js can always be forced', async () => {
    await ready();
    assert.ok(isBackendAvailable(backend()));
    setBackend('js');
    assert.equal(backend(), 'js');
  });
});
