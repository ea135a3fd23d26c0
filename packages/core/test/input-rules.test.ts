// Inputs that must never hash as something else: views of detached buffers, strings with lone
// surrogates, arrays whose reading runs the caller's code; and errors that name the argument.
import { blake3, hashMany, hashManyInto } from '@blake3-web/core';
import {
  hashSubtree,
  mergeManySubtreesNonRoot,
  mergeSubtreesNonRoot,
  mergeSubtreesRoot,
} from '@blake3-web/core/hazmat';
import { paint } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { forEachBackend } from './_backends.ts';

/** Detaches `buffer` the way posting it to a worker does; its views then read as empty. */
function detach(buffer: ArrayBufferLike): void {
  structuredClone(buffer, { transfer: [buffer as ArrayBuffer] });
}

/** The view `make` makes of a 128-byte buffer, once that buffer has been detached. */
function detachedView<T extends ArrayBufferView>(make: (b: ArrayBuffer) => T): T {
  const buffer = new ArrayBuffer(128);
  const view = make(buffer);
  detach(buffer);
  return view;
}

const detached = /is a view of a detached ArrayBuffer/;

/** `fn` throws a TypeError whose message starts with the argument's `name` and matches `pattern`. */
function throwsNaming(fn: () => unknown, name: string, pattern: RegExp): void {
  assert.throws(fn, (e: Error) => {
    assert.equal(e.name, 'TypeError', `${name}: ${e.message}`);
    assert.match(e.message, pattern);
    assert.ok(e.message.startsWith(`${name} `), `message names ${name}: ${e.message}`);
    return true;
  });
}

const throwsDetached = (fn: () => unknown, name: string) => throwsNaming(fn, name, detached);

describe('views of detached buffers are a TypeError naming the argument, never the empty input', () => {
  const views: [string, () => ArrayBufferLike | ArrayBufferView][] = [
    ['a Uint8Array', () => detachedView((b) => new Uint8Array(b, 8, 16))],
    ['a Uint8Array over all of its buffer', () => detachedView((b) => new Uint8Array(b))],
    ['a Uint32Array', () => detachedView((b) => new Uint32Array(b, 8, 4))],
    ['a DataView', () => detachedView((b) => new DataView(b, 8, 16))],
    [
      'an ArrayBuffer',
      () => {
        const b = new ArrayBuffer(16);
        detach(b);
        return b;
      },
    ],
  ];
  for (const [what, make] of views) {
    it(`${what}: blake3, update, hashMany, hashManyInto, hashSubtree`, () => {
      throwsDetached(() => blake3(make() as Uint8Array), 'input');
      throwsDetached(() => blake3(make() as Uint8Array, { dkLen: 2000 }), 'input');
      throwsDetached(() => blake3.create().update(make() as Uint8Array), 'input');
      throwsDetached(
        () =>
          blake3
            .create()
            .update('abc')
            .update(make() as Uint8Array),
        'input',
      );
      throwsDetached(() => hashMany(['a', 'b', make() as Uint8Array, 'c', 'd']), 'inputs[2]');
      throwsDetached(() => hashMany([make() as Uint8Array]), 'inputs[0]');
      throwsDetached(() => hashManyInto(['a', make() as Uint8Array], new Uint8Array(64)), 'inputs[1]');
      throwsDetached(() => hashSubtree(make() as Uint8Array, 0), 'input');
    });
  }

  it('outputs: digestInto, reader.readInto, hashManyInto', () => {
    const h = blake3.create().update('abc');
    throwsDetached(() => h.digestInto(detachedView((b) => new Uint8Array(b, 8, 32))), 'out');
    throwsDetached(() => h.digestInto(detachedView((b) => new DataView(b)) as never), 'out');
    throwsDetached(() => h.reader().readInto(detachedView((b) => new Uint8Array(b, 0, 64))), 'out');
    throwsDetached(
      () =>
        hashManyInto(
          [],
          detachedView((b) => new Uint8Array(b)),
        ),
      'out',
    );
  });

  it('keys and hazmat nodes', () => {
    const cv = new Uint8Array(32);
    throwsDetached(() => blake3('x', { key: detachedView((b) => new Uint8Array(b, 0, 32)) }), 'opts.key');
    throwsDetached(() => blake3.create({ key: detachedView((b) => new Uint8Array(b, 0, 32)) }), 'opts.key');
    throwsDetached(
      () =>
        mergeSubtreesNonRoot(
          detachedView((b) => new Uint8Array(b, 0, 32)),
          cv,
        ),
      'left',
    );
    throwsDetached(
      () =>
        mergeSubtreesRoot(
          cv,
          detachedView((b) => new Uint8Array(b, 0, 32)),
        ),
      'right',
    );
    throwsDetached(() => mergeManySubtreesNonRoot(detachedView((b) => new Uint8Array(b, 0, 64))), 'nodes');
  });

  it('empty views of live buffers, and empty buffers, are still the empty input', () => {
    const empty = blake3(new Uint8Array(0));
    assert.deepEqual(blake3(new Uint8Array(new ArrayBuffer(8), 8, 0)), empty);
    assert.deepEqual(blake3(new Uint8Array(8).subarray(3, 3)), empty);
    assert.deepEqual(blake3(new ArrayBuffer(0)), empty);
    assert.deepEqual(blake3(new DataView(new ArrayBuffer(0))), empty);
    assert.deepEqual(blake3(new Uint16Array(0)), empty);
    assert.deepEqual(blake3.create().update(new Uint8Array(0)).digest(), empty);
    assert.deepEqual(hashMany([new Uint8Array(0), new ArrayBuffer(0)]), [empty, empty]);
    blake3.create().digestInto(new Uint8Array(0));
  });
});

/** ES2024's resizable ArrayBuffer (every engine tested has it; the project's TypeScript lib is ES2022). */
type Resizable = ArrayBuffer & { resize(byteLength: number): void };
const Resizable = ArrayBuffer as unknown as new (byteLength: number, opts: { maxByteLength: number }) => Resizable;

/** The view `make` makes of a resizable 128-byte buffer, once that buffer has shrunk to `to` bytes. */
function shrunkView<T extends ArrayBufferView>(make: (b: ArrayBuffer) => T, to = 8): T {
  const buffer = new Resizable(128, { maxByteLength: 256 });
  const view = make(buffer);
  buffer.resize(to);
  return view;
}

describe('views past the end of a shrunk resizable buffer are a TypeError naming the argument, never the empty input', () => {
  const past = /is a view past the end of its ArrayBuffer, shrunk to 8 bytes/;
  const throwsPast = (fn: () => unknown, name: string) => throwsNaming(fn, name, past);
  const views: [string, () => ArrayBufferView][] = [
    ['a Uint8Array', () => shrunkView((b) => new Uint8Array(b, 8, 16))],
    [
      'a Uint8Array that tracks its buffer, from an offset past the new end',
      () => shrunkView((b) => new Uint8Array(b, 16)),
    ],
    ['a Uint32Array', () => shrunkView((b) => new Uint32Array(b, 8, 4))],
    ['a DataView', () => shrunkView((b) => new DataView(b, 4, 16))],
  ];
  forEachBackend('shrunk views', () => {
    for (const [what, make] of views) {
      it(`${what}: blake3, update, hashMany, hashManyInto, hashSubtree`, () => {
        throwsPast(() => blake3(make() as Uint8Array), 'input');
        throwsPast(
          () =>
            blake3
              .create()
              .update('abc')
              .update(make() as Uint8Array),
          'input',
        );
        throwsPast(() => hashMany(['a', make() as Uint8Array]), 'inputs[1]');
        throwsPast(() => hashManyInto([make() as Uint8Array], new Uint8Array(32)), 'inputs[0]');
        throwsPast(() => hashSubtree(make() as Uint8Array, 0), 'input');
      });
    }
    it('outputs and keys', () => {
      throwsPast(() => blake3.create().digestInto(shrunkView((b) => new Uint8Array(b, 8, 32))), 'out');
      throwsPast(() => blake3('x', { key: shrunkView((b) => new Uint8Array(b, 0, 32)) }), 'opts.key');
    });
  });

  it('views still inside the shrunk buffer hash their bytes; a tracking view follows the buffer', () => {
    const buffer = new Resizable(64, { maxByteLength: 256 });
    new Uint8Array(buffer).set(paint(64));
    const fixed = new Uint8Array(buffer, 4, 16);
    const tracking = new Uint8Array(buffer, 4);
    buffer.resize(40);
    assert.deepEqual(blake3(fixed), blake3(paint(64).subarray(4, 20)));
    assert.deepEqual(blake3(tracking), blake3(paint(64).subarray(4, 40)));
    buffer.resize(4); // a tracking view at the very end is in bounds and empty
    assert.deepEqual(blake3(tracking), blake3(new Uint8Array(0)));
  });
});

describe('a subclass of a typed array or DataView hashes as the bytes it holds, whatever it overrides', () => {
  // Each subclass lies about its size or its bytes through what it overrides; the engine's view of
  // its memory is the truth. Lengths cover the JS path, the scalar kernel and the SIMD kernel.
  class ShortLength extends Uint8Array {
    override get length(): number {
      return 3;
    }
  }
  class LongLength extends Uint8Array {
    override get length(): number {
      return super.length + 224;
    }
  }
  class OtherSubarray extends Uint8Array {
    override subarray(begin = 0, end = this.length): Uint8Array<ArrayBuffer> {
      return new Uint8Array(end - begin);
    }
  }
  class OtherBuffer extends Uint16Array {
    override get buffer(): ArrayBuffer {
      return new ArrayBuffer(4096);
    }
    override get byteLength(): number {
      return 2;
    }
  }
  const DataViewClass = DataView as new (buffer: ArrayBuffer, byteOffset?: number) => DataView;
  class OtherDataView extends DataViewClass {
    override get byteOffset(): number {
      return 0;
    }
  }
  const makers: [string, (bytes: Uint8Array) => ArrayBufferView][] = [
    ['a length getter that says less', (b) => new ShortLength(b)],
    ['a length getter that says more', (b) => new LongLength(b)],
    ['a subarray that returns other bytes', (b) => new OtherSubarray(b)],
    ['a Uint16Array whose buffer and byteLength lie', (b) => new OtherBuffer(b.slice().buffer)],
    ['a DataView whose byteOffset lies', (b) => new OtherDataView(Uint8Array.of(9, 9, ...b).buffer, 2)],
  ];
  forEachBackend('subclassed views', () => {
    for (const [what, make] of makers) {
      it(`${what}: blake3, update, hashMany, hashManyInto, hashSubtree, keys`, () => {
        for (const len of [64, 1000, 5000]) {
          const bytes = paint(len);
          const want = blake3(bytes);
          const input = make(bytes) as Uint8Array;
          assert.deepEqual(blake3(input), want, `blake3, ${len} bytes`);
          assert.deepEqual(blake3.create().update(input).digest(), want, `update, ${len} bytes`);
          assert.deepEqual(hashMany([input, bytes]), [want, want], `hashMany, ${len} bytes`);
          const out = new Uint8Array(32);
          hashManyInto([input], out);
          assert.deepEqual(out, want, `hashManyInto, ${len} bytes`);
          assert.deepEqual(hashSubtree(input, 0), hashSubtree(bytes, 0), `hashSubtree, ${len} bytes`);
        }
        const key = paint(32);
        assert.deepEqual(blake3('abc', { key: make(key) as Uint8Array }), blake3('abc', { key }), 'opts.key');
      });
    }
    it('an output array whose length lies receives the whole digest', () => {
      const out = new ShortLength(32);
      blake3.create().update('abc').digestInto(out);
      assert.deepEqual(new Uint8Array(out.buffer), blake3('abc'));
    });
  });
});

describe('strings with lone surrogates are a TypeError naming the argument', () => {
  // TextEncoder replaces a lone surrogate with U+FFFD, so these would all hash alike.
  const lone = [
    'id:\uD800',
    'id:\uDBFF',
    'id:\uDC00',
    '\uDFFF',
    'a\uD800b',
    '\uDC00\uD800',
    'x'.repeat(2000) + '\uD83D',
  ];

  const where = /must be a well-formed string: a lone surrogate \(at index \d+\)/;
  function throwsLone(fn: () => unknown, name: string, at?: number): void {
    assert.throws(fn, (e: Error) => {
      assert.equal(e.name, 'TypeError');
      assert.match(e.message, where);
      assert.ok(e.message.startsWith(`${name} `), `message names ${name}: ${e.message}`);
      if (at !== undefined) assert.match(e.message, new RegExp(`at index ${at}\\)`));
      return true;
    });
  }

  it('in blake3, update, hashMany, hashManyInto, hashSubtree, and derive_key contexts', () => {
    for (const s of lone) {
      throwsLone(() => blake3(s), 'input');
      throwsLone(() => blake3.create().update('ok').update(s), 'input');
      throwsLone(() => hashMany(['a', s]), 'inputs[1]');
      throwsLone(() => hashManyInto([s, 'b', 'c', 'd'], new Uint8Array(128)), 'inputs[0]');
      throwsLone(() => hashSubtree(s, 0), 'input');
      throwsLone(() => blake3('x', { context: s }), 'opts.context');
      throwsLone(() => blake3.create({ context: s }), 'opts.context');
      throwsLone(() => hashMany(['x'], { context: s }), 'opts.context');
    }
    throwsLone(() => blake3('ab\uDC00'), 'input', 2);
    throwsLone(() => blake3('\uD83D\uDE00\uD800'), 'input', 2);
  });

  it('well-formed strings, astral characters included, hash as their UTF-8', () => {
    const s = 'caf\u00e9 \uD83D\uDE00 \u4e2d';
    const utf8 = new TextEncoder().encode(s);
    assert.deepEqual(blake3(s), blake3(utf8));
    assert.deepEqual(blake3.create().update(s).digest(), blake3(utf8));
    assert.deepEqual(hashMany([s, s, s, s, s]), Array(5).fill(blake3(utf8)));
    assert.deepEqual(blake3('x', { context: s }), blake3('x', { context: s }));
    assert.deepEqual(blake3(''), blake3(new Uint8Array(0)));
  });
});

describe('messages that name the problem', () => {
  it('a hole in hashMany inputs is named by its index', () => {
    // eslint-disable-next-line no-sparse-arrays
    const holey = [new Uint8Array(1), , new Uint8Array(2)] as Uint8Array[];
    for (const fn of [() => hashMany(holey), () => hashManyInto(holey, new Uint8Array(96))]) {
      assert.throws(fn, { name: 'TypeError', message: /^inputs\[1\] must be a Uint8Array.*got undefined/ });
    }
    const longer = Array.from({ length: 40 }, (_, i) => paint(i));
    delete (longer as unknown[])[33];
    assert.throws(() => hashMany(longer), { name: 'TypeError', message: /^inputs\[33\] .*got undefined/ });
  });

  it('dkLen and read(n) above 2^30 are RangeErrors naming the argument and the limit', () => {
    const limit = /must be at most 2\^30 \(1073741824\) bytes.*got/;
    for (const dkLen of [2 ** 30 + 1, 2 ** 40, Number.MAX_SAFE_INTEGER]) {
      assert.throws(() => blake3('x', { dkLen }), {
        name: 'RangeError',
        message: new RegExp(`^opts.dkLen ${limit.source} ${dkLen}$`),
      });
      assert.throws(() => blake3.create({ dkLen }), {
        name: 'RangeError',
        message: /^opts.dkLen must be at most 2\^30/,
      });
      assert.throws(() => hashMany(['x'], { dkLen }), {
        name: 'RangeError',
        message: /^opts.dkLen must be at most 2\^30/,
      });
      assert.throws(() => mergeSubtreesRoot(new Uint8Array(32), new Uint8Array(32), { dkLen }), {
        name: 'RangeError',
        message: /^opts.dkLen/,
      });
      assert.throws(() => blake3.create().reader().read(dkLen), {
        name: 'RangeError',
        message: /^n must be at most 2\^30/,
      });
    }
  });

  it('the reader still reads anywhere in the 2^64-byte stream, past 2^30 bytes', () => {
    const reader = blake3.create().update('far').reader();
    const first = reader.read(64);
    reader.position = 2 ** 31;
    const far = reader.read(64);
    reader.position = 0;
    assert.deepEqual(reader.read(64), first);
    assert.notDeepEqual(far, first);
    reader.position = 2 ** 31;
    const into = new Uint8Array(64);
    reader.readInto(into);
    assert.deepEqual(into, far);
  });
});

forEachBackend('hashMany re-entered while reading its inputs', () => {
  const N = 64;
  const messages = Array.from({ length: N }, (_, i) => paint(37 * i + (i % 3) * 1500));
  const expected = messages.map((m) => blake3(m));
  /** Another batch, hashed from inside the caller's code, with its own check. */
  function nested(i: number): void {
    const inner = Array.from({ length: 9 }, (_, j) => paint(100 * j + i));
    assert.deepEqual(
      hashMany(inner),
      inner.map((m) => blake3(m)),
    );
  }

  it('through a Proxy array: every digest right', () => {
    const proxy = new Proxy(messages, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) nested(Number(key));
        return Reflect.get(target, key, receiver);
      },
    });
    assert.deepEqual(hashMany(proxy), expected);
    const out = new Uint8Array(32 * N);
    hashManyInto(proxy, out);
    for (let i = 0; i < N; i++) assert.deepEqual(out.subarray(32 * i, 32 * i + 32), expected[i], `digest ${i}`);
  });

  it('through accessor elements: every digest right', () => {
    const accessors: Uint8Array[] = [];
    messages.forEach((m, i) =>
      Object.defineProperty(accessors, i, {
        enumerable: true,
        get() {
          nested(i);
          blake3(m, { dkLen: 100 });
          return m;
        },
      }),
    );
    assert.deepEqual(hashMany(accessors), expected);
    const out = new Uint8Array(32 * N);
    hashManyInto(accessors, out);
    for (let i = 0; i < N; i++) assert.deepEqual(out.subarray(32 * i, 32 * i + 32), expected[i], `digest ${i}`);
  });

  it('a length that changes between reads cannot leave holes in hashManyInto', () => {
    let reads = 0;
    const proxy = new Proxy(messages.slice(0, 8), {
      get(target, key, receiver) {
        if (key === 'length') return reads++ === 0 ? 8 : 4;
        return Reflect.get(target, key, receiver);
      },
    });
    const out = new Uint8Array(32 * 8);
    try {
      hashManyInto(proxy, out);
      const n = out.length / 32;
      for (let i = 0; i < n; i++) assert.deepEqual(out.subarray(32 * i, 32 * i + 32), expected[i], `digest ${i}`);
    } catch (e) {
      assert.ok(e instanceof RangeError, String(e));
      assert.match((e as Error).message, /out must be/);
    }
  });
});
