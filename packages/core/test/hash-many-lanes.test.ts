// hashMany against per-message blake3() where the lane scheduler can go wrong: batch sizes around
// the 8 lanes, lanes finishing at different blocks, messages of 1-16 chunks whose parents run in
// the lanes level by level, messages that take the one-shot path among lane jobs, pieces that
// fill WASM memory exactly, inputs at odd offsets of shared buffers, and every output length class.
import { blake3, hashMany, hashManyInto, type Blake3Opts } from '@blake3-web/core';
import { Random, testSeed } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { MANY_IN_LEN, MANY_MAX_JOBS, MANY_MAX_MESSAGES } from '../src/wasm/_many-layout.ts';
import { forEachBackend } from './_backends.ts';

const seed = testSeed() ^ 0x5eed;
const rng = new Random(seed);
const KEY = rng.bytes(32);
const MODES: readonly Blake3Opts[] = [{}, { key: KEY }, { context: 'blake3-web 2026-11 hashMany lanes' }];
const name = (o: Blake3Opts) =>
  (o.key ? 'keyed' : o.context ? 'derive_key' : 'hash') + (o.dkLen === undefined ? '' : ` dkLen ${o.dkLen}`);

function check(inputs: readonly Uint8Array[], opts: Blake3Opts, what: string): void {
  const got = hashMany(inputs, opts);
  assert.equal(got.length, inputs.length, what);
  const dkLen = opts.dkLen ?? 32;
  const out = new Uint8Array(inputs.length * dkLen).fill(0xa5);
  hashManyInto(inputs, out, opts);
  for (let i = 0; i < inputs.length; i++) {
    const expected = blake3(inputs[i], opts);
    assert.deepEqual(got[i], expected, `${what}: message ${i} of ${inputs.length} bytes, ${name(opts)}`);
    assert.deepEqual(
      out.subarray(i * dkLen, (i + 1) * dkLen),
      expected,
      `${what}: hashManyInto message ${i}, ${name(opts)}`,
    );
  }
}

forEachBackend(`hashMany lanes (seed ${seed})`, () => {
  it('batch sizes 0-40 (not multiples of the lane count), lengths mixed within a batch', () => {
    for (let n = 0; n <= 40; n++) {
      const inputs = Array.from({ length: n }, () =>
        rng.bytes(rng.pick([0, 1, 63, 64, 65, 1023, 1024, 1025, rng.int(0, 3000)])),
      );
      check(inputs, rng.pick(MODES), `batch of ${n}`);
    }
  });

  it('all lengths 0..2049 shuffled into one batch, every mode', () => {
    const inputs = Array.from({ length: 2050 }, (_, n) => rng.bytes(n));
    for (let i = inputs.length - 1; i > 0; i--) {
      const j = rng.int(0, i);
      [inputs[i], inputs[j]] = [inputs[j], inputs[i]];
    }
    for (const opts of MODES) check(inputs, opts, 'lengths 0..2049 shuffled');
  });

  it('dkLen 0, 1, 31, 32, 33, 64, 65 and 131 in every mode, with one- and multi-chunk messages', () => {
    const inputs = Array.from({ length: 37 }, (_, i) =>
      rng.bytes(i % 3 === 0 ? rng.int(1025, 8192) : rng.int(0, 1024)),
    );
    for (const dkLen of [0, 1, 31, 32, 33, 64, 65, 131])
      for (const opts of MODES) check(inputs, { ...opts, dkLen }, `dkLen ${dkLen}`);
  });

  it('random mixes of lengths up to 64 KiB, with one huge message among many small ones', () => {
    for (let round = 0; round < 4; round++) {
      const inputs = Array.from({ length: 200 }, () =>
        rng.bytes(rng.pick([rng.int(0, 64), rng.int(0, 4096), rng.int(0, 65536)])),
      );
      inputs.splice(rng.int(0, inputs.length), 0, rng.bytes(rng.pick([1 << 20, (1 << 20) + 1, 3 * 1024 * 1024 + 17])));
      check(inputs, rng.pick(MODES), `random mix, round ${round}`);
    }
  });

  it('messages at odd byte offsets of one shared buffer, overlapping, and non-Uint8Array views', () => {
    const pool = rng.bytes(70000);
    const inputs: Uint8Array[] = [];
    for (let i = 0; i < 300; i++) {
      const len = rng.pick([0, 1, 5, 64, 100, 1024, 1500, rng.int(0, 9000)]);
      const from = rng.int(0, pool.length - len) | 1;
      inputs.push(pool.subarray(from, Math.min(from + len, pool.length)));
    }
    for (const opts of MODES) check(inputs, opts, 'odd offsets');
    const views = [
      new DataView(pool.buffer, 3, 100),
      new Uint16Array(pool.buffer, 2, 600),
      pool.buffer.slice(1, 2000),
      'text ünïcode',
    ];
    const got = hashMany([...views, ...inputs.slice(0, 10)]);
    const asBytes = (v: unknown) =>
      typeof v === 'string'
        ? v
        : v instanceof ArrayBuffer
          ? new Uint8Array(v)
          : new Uint8Array(
              (v as ArrayBufferView).buffer,
              (v as ArrayBufferView).byteOffset,
              (v as ArrayBufferView).byteLength,
            );
    views.forEach((v, i) => assert.deepEqual(got[i], blake3(asBytes(v) as Uint8Array | string), `view ${i}`));
  });

  it('pieces that fill the WASM input, the job table or the message slots exactly, and one over', () => {
    const pieceBytes = MANY_IN_LEN;
    for (const len of [64, 1024, 1000, 4096, 8192, 8193, 16384]) {
      const count = Math.ceil((2 * pieceBytes) / Math.max(len, 64)) + 1;
      const inputs = Array.from({ length: count }, (_, i) => rng.bytes(i === count - 1 ? len + 1 : len));
      check(inputs, rng.pick(MODES), `${count} messages of ${len} bytes`);
    }
    // Empty messages fill the message slots before the job table; 1 KiB ones fill the input.
    for (const n of [MANY_MAX_MESSAGES - 1, MANY_MAX_MESSAGES, MANY_MAX_MESSAGES + 1, 2 * MANY_MAX_MESSAGES + 1]) {
      check(
        Array.from({ length: n }, () => new Uint8Array(0)),
        {},
        `${n} empty messages`,
      );
    }
    for (const n of [pieceBytes / 1024 - 1, pieceBytes / 1024, pieceBytes / 1024 + 1])
      check(
        Array.from({ length: n }, () => rng.bytes(1024)),
        rng.pick(MODES),
        `${n} messages of 1 KiB`,
      );
    // Two-chunk messages: the job table (2 per message) and the input fill together.
    check(
      Array.from({ length: MANY_MAX_JOBS / 2 + 3 }, () => rng.bytes(1025)),
      {},
      'messages of 1025 bytes',
    );
  });

  it('every chunk count 2-17 at every length class of the last chunk (trees hashed level by level in the lanes)', () => {
    const inputs: Uint8Array[] = [];
    for (let chunks = 2; chunks <= 17; chunks++)
      for (const last of [1, 63, 64, 65, 1023, 1024]) inputs.push(rng.bytes((chunks - 1) * 1024 + last));
    for (const opts of MODES) check(inputs, opts, 'chunk counts');
    // Roots of parents with output words 8-15, and trees alone or two to a piece.
    for (const dkLen of [33, 64]) check(inputs, { ...rng.pick(MODES), dkLen }, `chunk counts, dkLen ${dkLen}`);
    for (let chunks = 2; chunks <= 17; chunks++)
      check(
        Array.from({ length: 5 }, () => rng.bytes(chunks * 1024 - rng.int(0, 1023))),
        rng.pick(MODES),
        `five trees of ${chunks} chunks`,
      );
  });
});
