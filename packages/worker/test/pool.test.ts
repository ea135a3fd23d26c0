import { blake3, bytesToHex, type Blake3Opts } from '@blake3-web/core';
import { paint, Random, testSeed } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { openAsBlob, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createPool, type Pool } from '../src/index-node.ts';
import { DEFAULT_SUBTREE_BYTES } from '../src/plan-subtrees.ts';
import { KiB, MiB, settlesWithin, sourceWorker, tempDir } from './_helpers.ts';

const modes: { name: string; opts: Blake3Opts }[] = [
  { name: 'hash', opts: {} },
  { name: 'keyed', opts: { key: paint(32, 3) } },
  { name: 'derive_key', opts: { context: 'blake3-web 2024-01-01 worker pool test' } },
];
const S = 64 * KiB;

function pool(size: number, subtreeBytes = S): Pool {
  const p = createPool({ size, subtreeBytes, createWorker: sourceWorker });
  after(() => p.terminate());
  return p;
}

/** Sizes around what the planner and the tree shape could get wrong, for subtrees of S bytes. */
const boundarySizes = [
  0,
  1,
  1023,
  1024,
  1025,
  64 * KiB,
  64 * KiB + 1, // inlined below 64 KiB + 1
  S + 1024,
  2 * S - 1024,
  2 * S - 1,
  2 * S,
  2 * S + 1,
  2 * S + 1024,
  3 * S + 1,
  4 * S - 1,
  4 * S,
  4 * S + 1,
  8 * S - 1024,
  8 * S,
  8 * S + 1024,
  16 * S + 1,
  33 * S - 1,
];

describe('pool hashes equal blake3()', () => {
  it('at boundary sizes, for pool sizes 1, 2 and 3, Blob input', async () => {
    for (const size of [1, 2, 3]) {
      const p = pool(size);
      for (const total of boundarySizes) {
        const input = paint(total);
        assert.equal(
          bytesToHex(await p.hashBlob(new Blob([input]))),
          bytesToHex(blake3(input)),
          `pool of ${size}, ${total} bytes`,
        );
      }
    }
  });

  it('in every mode, for dkLen 0, 1, 32 and 131', async () => {
    const p = pool(2);
    for (const total of [5 * S + 1, 8 * S, 100 * KiB, 300]) {
      const input = paint(total, total);
      const blob = new Blob([input]);
      for (const { name, opts } of modes) {
        for (const dkLen of [0, 1, 32, 131]) {
          const got = await p.hashBlob(blob, { ...opts, dkLen });
          assert.equal(got.length, dkLen);
          assert.equal(
            bytesToHex(got),
            bytesToHex(blake3(input, { ...opts, dkLen })),
            `${name}, ${total} bytes, dkLen ${dkLen}`,
          );
        }
      }
    }
  });

  it('for random sizes up to 64 MiB in 64 KiB subtrees, as Blobs, paths and file-backed Blobs', async () => {
    const rng = new Random(testSeed());
    const dir = tempDir();
    const p = pool(3);
    const sizes = [64 * MiB, rng.int(32 * MiB, 64 * MiB), rng.int(1 * MiB, 16 * MiB), rng.int(S, 8 * S), rng.int(1, S)];
    for (const [i, total] of sizes.entries()) {
      const input = i % 2 === 0 ? paint(total, i) : rng.bytes(total);
      const { name, opts } = modes[i % 3];
      const expected = bytesToHex(blake3(input, opts));
      const path = join(dir, `input-${i}.bin`);
      writeFileSync(path, input);
      assert.equal(bytesToHex(await p.hashBlob(new Blob([input]), opts)), expected, `Blob of ${total} bytes, ${name}`);
      assert.equal(bytesToHex(await p.hashFile(path, opts)), expected, `path of ${total} bytes, ${name}`);
      assert.equal(
        bytesToHex(await p.hashBlob(await openAsBlob(path), opts)),
        expected,
        `fs.openAsBlob of ${total} bytes, ${name}`,
      );
    }
  });

  it('with the default subtree size, including mid-sized inputs split finer; paths read in 1 MiB pieces', async () => {
    const p = pool(2, DEFAULT_SUBTREE_BYTES);
    const dir = tempDir();
    for (const total of [MiB, MiB + 1, 12 * MiB + 5, 24 * MiB - 1, 40 * MiB + 3, 70 * MiB - 1]) {
      const input = paint(total, 1);
      const path = join(dir, `${total}.bin`);
      writeFileSync(path, input);
      const expected = bytesToHex(blake3(input, { context: 'pieces' }));
      assert.equal(
        bytesToHex(await p.hashBlob(new Blob([input]), { context: 'pieces' })),
        expected,
        `Blob of ${total} bytes`,
      );
      assert.equal(bytesToHex(await p.hashFile(path, { context: 'pieces' })), expected, `path of ${total} bytes`);
    }
  });

  it('for several hashes at once on one pool', async () => {
    const p = pool(2);
    const inputs = [paint(10 * S + 7), paint(3 * S, 5), paint(1000), paint(40 * S - 1, 9)];
    const hashes = await Promise.all(inputs.map((input, i) => p.hashBlob(new Blob([input]), modes[i % 3].opts)));
    hashes.forEach((h, i) => assert.deepEqual(h, blake3(inputs[i], modes[i % 3].opts), `input ${i}`));
  });

  it('hashes Files like Blobs, and slices of Blobs', async () => {
    const p = pool(2);
    const input = paint(20 * S + 3);
    assert.deepEqual(await p.hashBlob(new File([input], 'a.bin')), blake3(input));
    const slice = new Blob([input]).slice(S + 17, 19 * S);
    assert.deepEqual(await p.hashBlob(slice), blake3(input.subarray(S + 17, 19 * S)));
  });
});

describe('progress', () => {
  it('only grows and ends at total, for split, single-task and inline inputs', async () => {
    const p = pool(3);
    for (const total of [37 * S + 5, S + 1, 1000, 0]) {
      const calls: [number, number][] = [];
      await settlesWithin(
        p.hashBlob(new Blob([paint(total)]), { onProgress: (done, all) => calls.push([done, all]) }),
        60_000,
        'hashBlob',
      );
      assert.ok(calls.length >= 1, `${total} bytes: progress was reported`);
      for (const [i, [done, all]] of calls.entries()) {
        assert.equal(all, total);
        assert.ok(
          done >= (i === 0 ? 0 : calls[i - 1][0]) && done <= total,
          `${total} bytes: call ${i} reports ${done}`,
        );
        if (i > 0) assert.ok(done > calls[i - 1][0], 'each call reports new bytes');
      }
      assert.equal(calls[calls.length - 1][0], total);
      if (total > S) assert.equal(calls.length, Math.ceil(total / S), 'one call per subtree');
    }
  });

  it('a throwing callback rejects the hash with its error, and the pool goes on', async () => {
    const p = pool(2);
    const boom = new Error('progress bar broke');
    await assert.rejects(
      p.hashBlob(new Blob([paint(10 * S)]), {
        onProgress: () => {
          throw boom;
        },
      }),
      (e) => e === boom,
    );
    assert.deepEqual(await p.hashBlob(new Blob([paint(10 * S)])), blake3(paint(10 * S)));
  });
});
