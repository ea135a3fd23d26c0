// The upload hasher against the official implementation: random read boundaries, re-sent
// ranges and resumes from serialised checkpoints, in every mode, give the reference root.
import { bytesToHex } from '@blake3-web/core';
import { oracle, Random, testSeed } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readCheckpoint, UploadHasher, type Checkpoint } from '../src/index.ts';

const KEY = new Uint8Array(32).map((_, i) => i * 7 + 1);
const MODES = [
  { name: 'hash', opts: {} },
  { name: 'keyed_hash', opts: { key: KEY } },
  { name: 'derive_key', opts: { context: 'blake3-web upload tests 2026-11-24' } },
] as const;

const SIZES = [0, 1, 1023, 1024, 1025, 2048, 2049, 4096, 5000, 8192, 16385, 65536, 100_000, 1 << 18, (1 << 18) + 1];

type Case = { data: Uint8Array; dkLen: number; reads: number; retries: number; resumes: number; result: string };

/** Feeds `data` as an uploader would: random slices, some sent again, some resumed from a saved checkpoint. */
function upload(rng: Random, data: Uint8Array, opts: object, dkLen: number): Omit<Case, 'data' | 'dkLen'> {
  let hasher = new UploadHasher({ ...opts, upload: 'file-1' });
  let reads = 0;
  let retries = 0;
  let resumes = 0;
  while (hasher.offset < data.length) {
    const at = hasher.offset;
    const roll = rng.int(0, 9);
    if (roll === 0) {
      // A reload: only the serialised checkpoint survives; the gap after it is read again.
      const saved = JSON.parse(JSON.stringify(hasher.checkpoint())) as Checkpoint;
      hasher = new UploadHasher({ ...opts, upload: 'file-1', checkpoint: saved });
      assert.ok(hasher.offset <= at && at - hasher.offset <= 1024, `resumed at ${hasher.offset}, taken ${at}`);
      resumes++;
      continue;
    }
    // A request sent again starts before the offset taken; the rest start exactly at it.
    const start = roll === 1 ? Math.max(0, at - rng.int(1, 5000)) : at;
    if (roll === 1) retries++;
    const end = Math.min(data.length, start + rng.pick([1, 64, 1023, 1024, 1025, 4096, rng.int(1, 70_000)]));
    const fresh = hasher.write(start, data.subarray(start, end));
    assert.equal(fresh, Math.max(0, end - at));
    reads++;
  }
  return { reads, retries, resumes, result: bytesToHex(hasher.digest(dkLen)) };
}

describe('UploadHasher', () => {
  for (const mode of MODES) {
    it(`${mode.name}: random boundaries, retries and resumes give the reference root`, () => {
      const seed = testSeed();
      const rng = new Random(seed ^ mode.name.length);
      const cases: Case[] = [];
      for (let i = 0; i < 60; i++) {
        const size = i < SIZES.length ? SIZES[i] : rng.int(0, 300_000);
        const data = rng.bytes(size);
        const dkLen = rng.pick([32, 32, 1, 64, 131]);
        cases.push({ data, dkLen, ...upload(rng, data, mode.opts, dkLen) });
      }
      const expected = oracle(cases.map((c) => ({ data: c.data, length: c.dkLen, ...mode.opts })));
      cases.forEach((c, i) => assert.equal(c.result, expected[i], `seed ${seed}, case ${i}: ${c.data.length} bytes`));
      // The property covered what it claims to.
      assert.ok(cases.reduce((n, c) => n + c.retries, 0) > 20);
      assert.ok(cases.reduce((n, c) => n + c.resumes, 0) > 20);
    });
  }

  it('skips bytes it has taken, whatever they are now', () => {
    const data = new Random(1).bytes(10_000);
    const h = new UploadHasher();
    h.write(0, data.subarray(0, 6000));
    assert.equal(h.write(0, new Uint8Array(6000)), 0);
    assert.equal(h.write(5000, Uint8Array.of(...data.subarray(5000, 10_000))), 4000);
    assert.equal(bytesToHex(h.digest()), oracle([{ data, length: 32 }])[0]);
  });

  it('refuses a write that would leave a gap, and bad arguments, naming them', () => {
    const h = new UploadHasher();
    h.write(0, new Uint8Array(100));
    assert.throws(() => h.write(101, new Uint8Array(1)), {
      name: 'RangeError',
      message: /offset must be at most 100.*got 101/,
    });
    assert.throws(() => h.write(-1, new Uint8Array(1)), { name: 'RangeError', message: /offset/ });
    assert.throws(() => h.write(0, [1, 2] as unknown as Uint8Array), {
      name: 'TypeError',
      message: /bytes must be a Uint8Array, got an Array/,
    });
    assert.throws(() => new UploadHasher({ key: new Uint8Array(31) }), { name: 'RangeError', message: /key/ });
    assert.throws(() => new UploadHasher({ key: KEY, context: 'x' }), TypeError);
    assert.equal(h.offset, 100);
  });

  it('cannot end exactly at a resumed checkpoint (that state is not a root)', () => {
    const h = new UploadHasher();
    h.write(0, new Uint8Array(4097));
    const resumed = new UploadHasher({ checkpoint: h.checkpoint() });
    assert.equal(resumed.offset, 4096);
    assert.throws(() => resumed.digest(), RangeError);
    resumed.write(4096, new Uint8Array(1));
    assert.deepEqual(resumed.digest(), h.digest());
  });

  it('expect: a state of bytes taken already or of the wrong shape is refused, naming it', () => {
    const h = new UploadHasher();
    h.write(0, new Uint8Array(3000));
    const cv = new Uint8Array(32);
    assert.throws(() => h.expect(null as never), {
      name: 'TypeError',
      message: /state must be a checkpoint's state, got null/,
    });
    assert.throws(() => h.expect({ offset: 2048, cvs: cv }), {
      name: 'RangeError',
      message: /state.offset must be at or after the offset taken \(3000\), got 2048/,
    });
    assert.throws(() => h.expect({ offset: 4096 + 1, cvs: cv }), {
      name: 'RangeError',
      message: /state.offset must be a multiple of 1024, got 4097/,
    });
    assert.throws(() => h.expect({ offset: 4096, cvs: new Uint8Array(64) }), {
      name: 'RangeError',
      message: /state.cvs must be 32 bytes, got 64/,
    });
    assert.throws(() => h.expect({ offset: 4096, cvs: cv.subarray(1) }), {
      name: 'RangeError',
      message: /state.cvs must be 32 bytes, got 31/,
    });
    assert.throws(() => h.expect({ offset: 4096, cvs: [cv] } as never), {
      name: 'TypeError',
      message: /state.cvs must be a Uint8Array, got an Array of length 1/,
    });
    assert.equal(h.confirmed, undefined);
    // Met as soon as the bytes up to it are taken: their last chunk is taken as not the root's,
    // so the input cannot end there; it goes on as after a resume.
    const data = new Random(3).bytes(4097);
    const made = new UploadHasher({ upload: 'u' });
    made.write(0, data);
    const e = new UploadHasher({ upload: 'u' });
    e.expect(readCheckpoint(made.checkpoint(), 'u', 'hash'));
    e.write(0, data.subarray(0, 4096));
    assert.equal(e.confirmed, true);
    assert.throws(() => e.digest(), RangeError);
    e.write(4096, data.subarray(4096));
    assert.equal(bytesToHex(e.digest()), oracle([{ data, length: 32 }])[0]);
  });
});
