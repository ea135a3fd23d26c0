// One pass over a request's bytes (`LeafRun` feeding `SharedHashState`): whole leaves hashed once,
// their chaining values merged into the state's stack, the bytes around them taken as bytes. At
// random piece boundaries, with states settled and saved (and runs restarted from them, or the
// same run going on) at random points, in every mode and leaf size, the root is the official one,
// and a kept run holds exactly the leaves of its bytes.
import { blake3, bytesToHex } from '@blake3-web/core';
import { hashSubtrees, Mode } from '@blake3-web/core/hazmat';
import { oracle, Random, testSeed } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { LeafRun, readLeafRun } from '../src/_leaf-runs.ts';
import { SharedHashState } from '../src/_shared-state.ts';

const KEY = new Uint8Array(32).map((_, i) => i * 5 + 3);
const MODES = [
  { name: 'hash', opts: {} },
  { name: 'keyed_hash', opts: { key: KEY } },
  { name: 'derive_key', opts: { context: 'blake3-web leaf pass tests 2026-11-28' } },
] as const;
const seed = testSeed();

it(`hashes each byte once and gives the official root, leaves of 1, 16 and 64 KiB, every mode (seed ${seed})`, () => {
  const rng = new Random(seed);
  const cases: { what: string; data: Uint8Array; opts: object; root: string }[] = [];
  for (const { name, opts } of MODES)
    for (const leafBytes of [1024, 16 * 1024, 64 * 1024])
      for (const keep of [false, true])
        for (let n = 0; n < 6; n++) {
          const size = rng.pick([1, 1024, 1025, 16 * 1024, 16 * 1024 + 1, rng.int(1, 400_000)]);
          const data = rng.bytes(size);
          const mode = new Mode(opts);
          let state = SharedHashState.empty('u', opts);
          let run = new LeafRun(0, leafBytes, state, mode, keep && name === 'hash');
          const checkRun = (done: LeafRun) => {
            if (!(keep && name === 'hash') || done.end === done.start) return;
            const parts = readLeafRun(JSON.parse(JSON.stringify(done.record('u'))), 'u', leafBytes);
            const boundary = Math.ceil(parts.start / leafBytes) * leafBytes;
            const whole = data.subarray(boundary, parts.end - parts.tail.length);
            assert.deepEqual(parts.head, data.subarray(parts.start, boundary < parts.end ? boundary : parts.end));
            assert.deepEqual(parts.tail, data.subarray(parts.end - parts.tail.length, parts.end));
            assert.deepEqual(
              parts.cvs,
              whole.length === 0 ? new Uint8Array(0) : hashSubtrees(whole, boundary, leafBytes),
            );
          };
          while (run.end < size) {
            const piece = rng.pick([0, 1, 1023, 1024, 1025, leafBytes, leafBytes + 1, rng.int(1, 200_000)]);
            run.update(data.subarray(run.end, Math.min(size, run.end + piece)));
            const roll = rng.int(0, 9);
            if (roll === 0) {
              // A state saved where the run stands, and a new run (a new request) from it.
              run.settle();
              checkRun(run);
              state = SharedHashState.read(JSON.parse(JSON.stringify(state.record())), 'u', opts);
              run = new LeafRun(state.offset, leafBytes, state, mode, keep && name === 'hash');
            } else if (roll === 1) {
              // A state saved mid-run: the run goes on, the state takes its held leaf's other bytes.
              run.settle();
              assert.equal(state.offset, run.end);
              state.record();
            }
          }
          run.settle();
          checkRun(run);
          assert.equal(state.offset, size);
          const root = bytesToHex(state.digest());
          assert.equal(root, bytesToHex(blake3(data, opts)), `${name}, ${leafBytes}-byte leaves, ${size} bytes`);
          cases.push({ what: `${name}, ${leafBytes}-byte leaves, keep ${keep}, ${size} bytes`, data, opts, root });
        }
  const official = oracle(cases.map(({ data, opts }) => ({ data, length: 32, ...opts })));
  cases.forEach((c, i) => assert.equal(c.root, official[i], c.what));
});

it(`gives the official root over runs of several MiB, bytes also written as bytes (as read back) in pieces up to 3 MiB (seed ${seed})`, () => {
  // Past the batch of leaf values a run merges at once (1 MiB of content) and past the bytes a
  // state gathers before it hashes them (1 MiB), from a state read back as each request starts.
  const rng = new Random(seed ^ 0x5eed);
  const cases: { what: string; data: Uint8Array; opts: object; root: string }[] = [];
  for (const { name, opts } of MODES)
    for (const leafBytes of [1024, 64 * 1024]) {
      const size = rng.int(7 << 20, 9 << 20);
      const data = rng.bytes(size);
      const mode = new Mode(opts);
      let state = SharedHashState.empty('u', opts);
      let run = new LeafRun(0, leafBytes, state, mode, false);
      // Once in every case: several batches of leaves in one run, then more than the state
      // gathers taken as bytes in small pieces.
      run.update(data.subarray(0, rng.int((4 << 20) + 1, 5 << 20)));
      run.settle();
      for (const end = state.offset + rng.int((1 << 20) + 1, 3 << 19); state.offset < end;) {
        const n = Math.min(end - state.offset, rng.pick([1, 1025, rng.int(1, 300_000)]));
        state.write(state.offset, data.subarray(state.offset, state.offset + n));
      }
      run = new LeafRun(state.offset, leafBytes, state, mode, false);
      while (run.end < size) {
        const roll = rng.int(0, 19);
        if (roll < 16) {
          const big = rng.int(1, 3 << 20);
          const piece = rng.pick([1, 1023, 1025, leafBytes - 1, leafBytes + 1, big, big, big]);
          run.update(data.subarray(run.end, Math.min(size, run.end + piece)));
          continue;
        }
        run.settle();
        if (roll < 18) state = SharedHashState.read(JSON.parse(JSON.stringify(state.record())), 'u', opts);
        // Bytes taken as bytes, a piece at a time, as the store's bytes are read back.
        for (let left = roll === 19 ? rng.int(1, 3 << 20) : 0; left > 0 && state.offset < size;) {
          const n = Math.min(left, size - state.offset, rng.pick([1, 1024, 1025, rng.int(1, 1.5 * (1 << 20))]));
          state.write(state.offset, data.subarray(state.offset, state.offset + n));
          left -= n;
        }
        run = new LeafRun(state.offset, leafBytes, state, mode, false);
      }
      run.settle();
      assert.equal(state.offset, size);
      const root = bytesToHex(state.digest());
      const what = `${name}, ${leafBytes}-byte leaves, ${size} bytes`;
      assert.equal(root, bytesToHex(blake3(data, opts)), what);
      cases.push({ what, data, opts, root });
    }
  const official = oracle(cases.map(({ data, opts }) => ({ data, length: 32, ...opts })));
  cases.forEach((c, i) => assert.equal(c.root, official[i], c.what));
});
