// Output arrays that lie in the inputs' memory: every entry point that writes into a caller's
// array must give the digests of the inputs as they were when the call began, whatever the
// overlap, compared with the official implementation (the `blake3` Python package).
import { blake3, bytesToHex, hashManyInto, type Blake3Opts } from '@blake3-web/core';
import { oracle, Random, testSeed, type OracleRequest } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forEachBackend } from './_backends.ts';

const KEY = new Uint8Array(32).map((_, i) => 3 * i + 1);
const CONTEXT = 'blake3-web 2026-11-28 overlapping output';
const modes: { name: string; opts: Blake3Opts; req: Pick<OracleRequest, 'key' | 'context'> }[] = [
  { name: 'hash', opts: {}, req: {} },
  { name: 'keyed', opts: { key: KEY }, req: { key: KEY } },
  { name: 'derive_key', opts: { context: CONTEXT }, req: { context: CONTEXT } },
];

/** Messages of `lengths` laid one after another in `buffer` from byte `at`, painted at random. */
function layMessages(rng: Random, buffer: ArrayBufferLike, at: number, lengths: readonly number[]): Uint8Array[] {
  const views: Uint8Array[] = [];
  for (const len of lengths) {
    const view = new Uint8Array(buffer, at, len);
    view.set(rng.bytes(len));
    views.push(view);
    at += len;
  }
  return views;
}

type Shape = { name: string; outAt: (inStart: number, inEnd: number, outLen: number) => number };

// Where `out` lies against the inputs, which fill [inStart, inEnd) of the same buffer.
const shapes: Shape[] = [
  { name: 'out before the inputs, its end over the first ones', outAt: (s, _e, n) => s - (n >> 1) },
  { name: 'out at the start of the inputs (a Merkle level in place)', outAt: (s) => s },
  { name: 'out inside the inputs', outAt: (s, e, n) => s + ((e - s - n) >> 1) },
  { name: 'out at the end of the inputs', outAt: (_s, e, n) => e - n },
  { name: 'out after the inputs, its start over the last ones', outAt: (_s, e, n) => e - (n >> 1) },
  { name: 'out straddling every input', outAt: (s, e, n) => s - ((n - (e - s)) >> 1) },
  { name: 'out apart, before the inputs', outAt: (s, _e, n) => s - n - 7 },
];

type Batch = { name: string; lengths: (rng: Random) => number[]; dkLen: number };

// 4096 messages fill several pieces on either backend; long messages take the one-shot path
// between pieces; an output longer than 64 bytes takes it for every message.
const batches: Batch[] = [
  { name: '4096 x 64 B, 32-byte digests', lengths: () => new Array(4096).fill(64), dkLen: 32 },
  {
    name: '700 of 0..4 KiB and 17..40 KiB mixed, 32-byte digests',
    lengths: (rng) => Array.from({ length: 700 }, (_, i) => (i % 50 === 7 ? rng.int(16385, 40960) : rng.int(0, 4096))),
    dkLen: 32,
  },
  {
    name: '300 of 0..3 KiB, 131-byte digests',
    lengths: (rng) => Array.from({ length: 300 }, () => rng.int(0, 3072)),
    dkLen: 131,
  },
  { name: '2000 x 16 B, 64-byte digests', lengths: () => new Array(2000).fill(16), dkLen: 64 },
];

type Case = { label: string; inputs: Uint8Array[]; out: Uint8Array; opts: Blake3Opts; expected: string };

/** One case per batch, mode and shape, each in its own buffer; expected digests from one oracle run. */
function makeCases(rng: Random): Case[] {
  const plans: (Omit<Case, 'expected'> & { requests: OracleRequest[] })[] = [];
  batches.forEach((batch, b) => {
    shapes.forEach((shape, i) => {
      // Each mode over every batch, a different shape each time.
      const mode = modes[(b + i) % modes.length];
      const lengths = batch.lengths(rng);
      const inLen = lengths.reduce((a, c) => a + c, 0);
      const outLen = lengths.length * batch.dkLen;
      const margin = outLen + inLen + 64;
      const buffer = new ArrayBuffer(inLen + 2 * margin);
      const inputs = layMessages(rng, buffer, margin, lengths);
      const out = new Uint8Array(buffer, shape.outAt(margin, margin + inLen, outLen), outLen);
      const requests = inputs.map((x) => ({ data: x.slice(), length: batch.dkLen, ...mode.req }));
      const opts = { ...mode.opts, dkLen: batch.dkLen };
      plans.push({ label: `${batch.name}, ${mode.name}, ${shape.name}`, inputs, out, opts, requests });
    });
  });
  const digests = oracle(plans.flatMap((p) => p.requests));
  let at = 0;
  return plans.map((p) => {
    const expected = digests.slice(at, (at += p.requests.length)).join('');
    return { label: p.label, inputs: p.inputs, out: p.out, opts: p.opts, expected };
  });
}

/** How many digests of `out` differ from `expected`, and the first that does. */
function wrongDigests(out: Uint8Array, expected: string, dkLen: number): string {
  const got = bytesToHex(out);
  let wrong = 0;
  let first = -1;
  for (let i = 0; i * 2 * dkLen < got.length; i++) {
    const a = 2 * dkLen * i;
    if (got.slice(a, a + 2 * dkLen) !== expected.slice(a, a + 2 * dkLen)) {
      wrong++;
      if (first < 0) first = i;
    }
  }
  return wrong === 0 ? '' : `${wrong} wrong digests, the first at ${first}`;
}

forEachBackend('hashManyInto with out over the inputs', () => {
  it('gives the digests of the inputs as given, for out before, at, inside, after and across them', () => {
    const rng = new Random(testSeed());
    for (const c of makeCases(rng)) {
      hashManyInto(c.inputs, c.out, c.opts);
      assert.equal(wrongDigests(c.out, c.expected, c.opts.dkLen!), '', c.label);
    }
  });

  it('the same memory through other views: DataView and Uint16Array inputs, a DataView or Uint32Array out, a whole ArrayBuffer as an input', () => {
    const rng = new Random(testSeed() + 1);
    const n = 3000;
    const buffer = new ArrayBuffer(64 * n + 64);
    const views = layMessages(rng, buffer, 64, new Array(n).fill(64));
    // Input 0 is the whole buffer, read as an ArrayBuffer; the others alternate view types.
    const inputs = [
      buffer,
      ...views
        .slice(1)
        .map((v, i) => (i % 2 ? new DataView(buffer, v.byteOffset, 64) : new Uint16Array(buffer, v.byteOffset, 32))),
    ];
    const requests = [new Uint8Array(buffer).slice(), ...views.slice(1).map((v) => v.slice())].map((data) => ({
      data,
      length: 32,
    }));
    const expected = oracle(requests).join('');
    for (const [name, out] of [
      ['a DataView', new DataView(buffer, 64 * 1000, 32 * n)],
      ['a Uint32Array', new Uint32Array(buffer, 64 * 1000, 8 * n)],
    ] as const) {
      const before = new Uint8Array(buffer).slice();
      // Any view is taken as its bytes, as for inputs (the type asks for a Uint8Array).
      hashManyInto(inputs, out as unknown as Uint8Array);
      const bytes = new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
      assert.equal(wrongDigests(bytes, expected, 32), '', `out as ${name}`);
      new Uint8Array(buffer).set(before); // the next out starts from the same inputs
    }
  });

  it('one SharedArrayBuffer reached through two objects', () => {
    const rng = new Random(testSeed() + 2);
    const n = 2500;
    const shared = new SharedArrayBuffer(64 * n);
    const inputs = layMessages(rng, shared, 0, new Array(n).fill(64));
    const expected = oracle(inputs.map((x) => ({ data: x.slice(), length: 32 }))).join('');
    const twin = structuredClone(shared); // another object over the same memory
    assert.notEqual(twin, shared);
    const out = new Uint8Array(twin, 16 * n, 32 * n);
    hashManyInto(inputs, out);
    assert.equal(wrongDigests(out, expected, 32), '');
  });

  it('one view given many times, and an out that is one of the inputs', () => {
    const rng = new Random(testSeed() + 3);
    const buffer = new ArrayBuffer(32 * 3000);
    const all = new Uint8Array(buffer);
    all.set(rng.bytes(all.length));
    const inputs = [all, ...new Array(2999).fill(all.subarray(0, 500))];
    const expected = oracle(inputs.map((x) => ({ data: x.slice(), length: 32 }))).join('');
    hashManyInto(inputs, all);
    assert.equal(wrongDigests(all, expected, 32), '');
  });
});

forEachBackend("the hasher's writes into caller memory", () => {
  it('digestInto and readInto over the bytes that were hashed', () => {
    const rng = new Random(testSeed() + 4);
    const cases = [0, 64, 1024, 5000, 70_000].flatMap((len) =>
      modes.map((mode) => ({ len, mode, data: rng.bytes(len + 300) })),
    );
    const wants = oracle(cases.map((c) => ({ data: c.data.slice(0, c.len), length: 300, ...c.mode.req })));
    cases.forEach(({ len, mode, data }, i) => {
      const want = wants[i];
      const label = `${len} bytes, ${mode.name}`;
      const h = blake3.create(mode.opts).update(data.subarray(0, len));
      // The digest over the input's own first bytes, then the XOF over the same place.
      h.digestInto(data.subarray(0, 131));
      assert.equal(bytesToHex(data.subarray(0, 131)), want.slice(0, 262), `digestInto, ${label}`);
      const reader = h.reader();
      reader.readInto(data.subarray(0, 100));
      reader.readInto(data.subarray(50, 250));
      assert.equal(bytesToHex(data.subarray(0, 50)), want.slice(0, 100), `readInto, ${label}`);
      assert.equal(bytesToHex(data.subarray(50, 250)), want.slice(200, 600), `readInto, ${label}`);
      // The hasher kept copies of what it needs: its digest is unchanged by the writes above.
      assert.equal(bytesToHex(h.digest()), want.slice(0, 64), `digest after the writes, ${label}`);
    });
  });
});
