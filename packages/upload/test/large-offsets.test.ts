// Files past 4 GiB without 4 GiB of work: a checkpoint stands for the bytes before 2^32 (its
// chaining values are random, so it stands for an input nobody has), and only the bytes after it
// are generated and hashed. The reference is the tree built from the definition: each subtree's
// chaining value from the checkpoint where the subtree is one of its, from hazmat's hashSubtree
// where it lies after them, split at leftSubtreeLen otherwise. Offsets, chunk counters (2^22 and
// up), checkpoints and the states a resumed upload is compared with all live above 2^32 here.
import { bytesToHex, hexToBytes, type Blake3Opts } from '@blake3-web/core';
import {
  cvStackDepth,
  hashSubtree,
  leftSubtreeLen,
  mergeSubtreesNonRoot,
  mergeSubtreesRoot,
} from '@blake3-web/core/hazmat';
import { Random, testSeed } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeCheckpoint, modeName, readCheckpoint } from '../src/checkpoint.ts';
import { UploadHasher, type Checkpoint } from '../src/index.ts';

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;
/** The bytes the checkpoint stands for: 4 GiB + 2 GiB + 4 MiB + 1 MiB, four subtrees. */
const RESUMED_AT = 4 * GiB + 2 * GiB + 5 * MiB;
const KEY = new Uint8Array(32).map((_, i) => 255 - i);
const MODES = [{}, { key: KEY }, { context: 'blake3-web upload large offsets' }] as const;

/** The generated file's byte at `offset`. */
const byteAt = (offset: number) => (offset * 7 + Math.floor(offset / 65_536)) % 251;
function generate(start: number, end: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(end - start);
  for (let i = 0; i < out.length; i++) out[i] = byteAt(start + i);
  return out;
}

/** The subtrees of a chunk stack at `offset`, largest first: [start, length] of each. */
function stackSubtrees(offset: number): [number, number][] {
  const out: [number, number][] = [];
  let at = 0;
  for (let len = 2 ** 52; len >= KiB; len /= 2) {
    if (offset - at >= len) {
      out.push([at, len]);
      at += len;
    }
  }
  return out;
}

/** The root of `size` bytes whose first `resumedAt` are given by `cvs` (chaining values of stackSubtrees). */
function referenceRoot(size: number, resumedAt: number, cvs: Uint8Array[], mode: object): string {
  const known = new Map(stackSubtrees(resumedAt).map(([start, len], i) => [`${start}+${len}`, cvs[i]]));
  const cv = (start: number, len: number): Uint8Array => {
    const given = known.get(`${start}+${len}`);
    if (given !== undefined) return given;
    if (start >= resumedAt) return hashSubtree(generate(start, start + len), start, mode);
    const left = leftSubtreeLen(len);
    return mergeSubtreesNonRoot(cv(start, left), cv(start + left, len - left), mode);
  };
  const left = leftSubtreeLen(size);
  return bytesToHex(mergeSubtreesRoot(cv(0, left), cv(left, size - left), mode));
}

function resumedCheckpoint(
  rng: Random,
  upload: string,
  mode: Omit<Blake3Opts, 'dkLen'>,
): { checkpoint: Checkpoint; cvs: Uint8Array[] } {
  const cvs = Array.from({ length: cvStackDepth(RESUMED_AT) }, () => rng.bytes(32));
  const state = { offset: RESUMED_AT, cvs: hexToBytes(cvs.map(bytesToHex).join('')) };
  return { checkpoint: makeCheckpoint(upload, modeName(mode), state), cvs };
}

describe('past 4 GiB', () => {
  it('the reference tree agrees with blake3() where both can be computed', () => {
    // The same recursion, with every subtree hashed, on an input small enough to hash whole.
    const data = generate(0, 3 * MiB + 5);
    const h = new UploadHasher();
    h.write(0, data);
    assert.equal(referenceRoot(data.length, 0, [], {}), bytesToHex(h.digest()));
  });

  for (const mode of MODES) {
    it(`UploadHasher resumed at 6 GiB: random writes, re-sent bytes and resumes give the reference root (${modeName(mode).split(':')[0]})`, () => {
      const seed = testSeed();
      const rng = new Random(seed);
      const size = RESUMED_AT + rng.int(3 * MiB, 9 * MiB);
      const { checkpoint, cvs } = resumedCheckpoint(rng, 'big', mode);
      let h = new UploadHasher({ ...mode, upload: 'big', checkpoint: JSON.parse(JSON.stringify(checkpoint)) });
      assert.equal(h.offset, RESUMED_AT);
      let resumes = 0;
      while (h.offset < size) {
        const at = h.offset;
        if (rng.int(0, 5) === 0) {
          const saved = h.checkpoint();
          assert.ok(saved.offset > 2 ** 32 && saved.offset % KiB === 0 && at - saved.offset < KiB, `seed ${seed}`);
          h = new UploadHasher({ ...mode, upload: 'big', checkpoint: JSON.parse(JSON.stringify(saved)) });
          resumes++;
          continue;
        }
        const start = Math.max(RESUMED_AT, at - rng.int(0, 3000));
        const end = Math.min(size, start + rng.pick([1, 1023, 1024, 1025, 65_536, rng.int(1, 2 * MiB)]));
        h.write(start, generate(start, end));
      }
      assert.ok(resumes > 0);
      assert.equal(bytesToHex(h.digest()), referenceRoot(size, RESUMED_AT, cvs, mode), `seed ${seed}`);
    });
  }

  it('a checkpoint expected past 4 GiB: confirmed by the bytes it was made of, refused for others', () => {
    const rng = new Random(testSeed());
    const { checkpoint } = resumedCheckpoint(rng, 'big', {});
    const resumed = () => new UploadHasher({ upload: 'big', checkpoint: JSON.parse(JSON.stringify(checkpoint)) });
    // The state of these generated bytes after the checkpoint, 3 MiB + 5 KiB on: past 2^32 chunks-wise too.
    const later = resumed();
    const end = RESUMED_AT + 3 * MiB + 5 * KiB;
    later.write(RESUMED_AT, generate(RESUMED_AT, end + 1));
    const state = readCheckpoint(later.checkpoint(), 'big', modeName({}));
    assert.equal(state.offset, end);
    for (const [bytes, confirmed] of [
      [generate(RESUMED_AT, end + 100), true],
      [generate(RESUMED_AT, end + 100).map((b, i) => (i === 2 * MiB ? b ^ 1 : b)), false],
    ] as const) {
      const h = resumed();
      h.expect(state);
      for (let at = RESUMED_AT; at < end + 100; at += 700_001)
        h.write(at, bytes.subarray(at - RESUMED_AT, Math.min(at + 700_001, end + 100) - RESUMED_AT));
      assert.equal(h.confirmed, confirmed);
    }
  });
});
