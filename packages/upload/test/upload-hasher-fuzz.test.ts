// The upload hasher against the official implementation (Python `blake3`), as a resumed upload
// drives it: random write boundaries, bytes sent again, resumes from serialised checkpoints,
// writes that fail (a gap, a wrong type) and leave the state as it was, and a checkpoint
// expected on the way, made of this file or of another one of the same length (the same name,
// size, type and date to tus). The root is always this file's, whatever was expected, and the
// expectation is met exactly when the bytes it covers are this file's. Bounded in time; the seed
// is printed (BLAKE3_TEST_SEED=<seed> replays a run, =random explores).
import { bytesToHex, type Blake3Opts } from '@blake3-web/core';
import { oracle, Random, testSeed } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { modeName, readCheckpoint } from '../src/checkpoint.ts';
import { UploadHasher, type CheckpointState } from '../src/index.ts';

const BUDGET_MS = 3000;
const KEY = new Uint8Array(32).map((_, i) => i * 5 + 3);
const MODES = [{}, { key: KEY }, { context: 'blake3-web upload fuzz 2026-11-28' }] as const;

type Run = {
  data: Uint8Array;
  mode: object;
  root: string;
  expected: boolean | undefined;
  confirmed: boolean | undefined;
};

/** `data` with bytes changed in one random range: another file of the same length. */
function otherFile(rng: Random, data: Uint8Array): { bytes: Uint8Array; firstDiff: number } {
  const bytes = data.slice();
  const at = rng.int(0, data.length - 1);
  const len = rng.int(1, Math.min(5000, data.length - at));
  for (let i = at; i < at + len; i++) bytes[i] ^= rng.int(1, 255);
  return { bytes, firstDiff: at };
}

/** The checkpoint's state after `source`'s first `n` bytes (at the chunk boundary at or below), through JSON. */
function stateAfter(source: Uint8Array, n: number, mode: object): CheckpointState {
  const h = new UploadHasher({ ...mode, upload: 'file' });
  h.write(0, source.subarray(0, n));
  return readCheckpoint(
    JSON.parse(JSON.stringify(h.checkpoint())),
    'file',
    modeName(mode as Omit<Blake3Opts, 'dkLen'>),
  );
}

function run(rng: Random, size: number, mode: object): Run {
  const data = rng.bytes(size);
  // The state expected on the way: of this file, or of another whose bytes may differ before it.
  let expectation: { state: CheckpointState; matches: boolean } | undefined;
  if (size > 2048 && rng.int(0, 3) > 0) {
    const n = rng.int(1025, size - 1);
    const other = rng.int(0, 1) === 0 ? otherFile(rng, data) : undefined;
    const state = stateAfter(other?.bytes ?? data, n, mode);
    expectation = { state, matches: other === undefined || other.firstDiff >= state.offset };
  }
  let hasher = new UploadHasher({ ...mode, upload: 'file' });
  if (expectation) hasher.expect(expectation.state);
  let confirmed: boolean | undefined;
  while (hasher.offset < size) {
    const at = hasher.offset;
    const roll = rng.int(0, 11);
    if (roll === 0) {
      // A reload: only the serialised checkpoint survives, and the expectation is set again if
      // its offset is still ahead (else it was met: its outcome was read before).
      confirmed ??= hasher.confirmed;
      const saved = JSON.parse(JSON.stringify(hasher.checkpoint()));
      hasher = new UploadHasher({ ...mode, upload: 'file', checkpoint: saved });
      if (expectation && confirmed === undefined && expectation.state.offset >= hasher.offset)
        hasher.expect(expectation.state);
      continue;
    }
    if (roll === 1) {
      // A write that fails changes nothing: a gap, or not bytes at all.
      assert.throws(() => hasher.write(at + rng.int(1, 3000), data.subarray(0, 10)), RangeError);
      assert.throws(() => hasher.write(at, Array.from(data.subarray(at, at + 10)) as never), TypeError);
      assert.equal(hasher.offset, at);
      continue;
    }
    const start = roll === 2 ? Math.max(0, at - rng.int(1, 5000)) : at;
    const end = Math.min(size, start + rng.pick([1, 63, 1023, 1024, 1025, 4096, rng.int(1, 70_000)]));
    assert.equal(hasher.write(start, data.subarray(start, end)), Math.max(0, end - at));
  }
  confirmed ??= hasher.confirmed;
  return { data, mode, root: bytesToHex(hasher.digest()), expected: expectation?.matches, confirmed };
}

it(`UploadHasher fuzzed against the official implementation for ${BUDGET_MS} ms`, () => {
  const seed = testSeed();
  console.log(`upload hasher fuzz: seed ${seed}`);
  const rng = new Random(seed);
  const runs: Run[] = [];
  const started = performance.now();
  while (performance.now() - started < BUDGET_MS || runs.length < 30) {
    const size = rng.pick([0, 1, 1024, 1025, 2049, rng.int(0, 5000), rng.int(0, 300_000)]);
    runs.push(run(rng, size, rng.pick(MODES)));
  }
  const roots = oracle(runs.map((r) => ({ data: r.data, length: 32, ...r.mode })));
  runs.forEach((r, i) => {
    const what = `seed ${seed}, run ${i}: ${r.data.length} bytes`;
    assert.equal(r.root, roots[i], what);
    assert.equal(r.confirmed, r.expected, what);
  });
  // The property covered what it claims to: checkpoints of this file and of others, met both ways.
  assert.ok(runs.filter((r) => r.expected === true).length > 5, `seed ${seed}`);
  assert.ok(runs.filter((r) => r.expected === false).length > 5, `seed ${seed}`);
});
