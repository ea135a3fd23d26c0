import { bytesToHex, CHUNK_LEN } from '@blake3-web/core';
import { ChainingValueStack, hashSubtrees as coreHashSubtrees, Mode } from '@blake3-web/core/hazmat';
import { hashSubtrees, NativeAddonError, platformName } from '@blake3-web/native';
import { oracle, Random, testSeed, type OracleRequest } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

const rng = new Random(testSeed() ^ 0x4e_a71e);
const modeOpts = (i: number): { key?: Uint8Array; context?: string } =>
  i % 3 === 1 ? { key: rng.bytes(32) } : i % 3 === 2 ? { context: `blake3-web native test ${i} ${rng.u32()}` } : {};

/** Leaves of 1 KiB to 2 MiB; inputs of at least two leaves (a lone leaf from 0 has no root to check). */
const cases = Array.from({ length: 30 }, (_, i) => {
  const log = rng.pick([0, 0, 1, 3, 4, 6, 10, 11, rng.int(0, 11)]);
  const leaf = CHUNK_LEN * 2 ** log;
  const leaves = rng.int(2, Math.max(2, Math.min(40, (6 << 20) / leaf)));
  const short = rng.pick([0, 1, rng.int(1, leaf - 1), leaf - 1]);
  const length = (leaves - (short > 0 ? 1 : 0)) * leaf + short;
  // The native part starts at a leaf boundary past zero (or at zero); the core hashes before it.
  const split = rng.int(0, leaves - 1) * leaf;
  const request: OracleRequest = { data: rng.bytes(length), ...modeOpts(i), length: 32 };
  return { request, leaf, split };
});
const official = oracle(cases.map((c) => c.request));

describe('hashSubtrees (native)', () => {
  it(`loads the addon for ${platformName()}`, () => {
    assert.equal(hashSubtrees(new Uint8Array(2048), 0, 1024).length, 64);
  });

  it('equals the core hazmat byte for byte, and its values merge to the official root (Python blake3)', () => {
    for (const [i, { request, leaf, split }] of cases.entries()) {
      const { data, key, context } = request;
      const mode = new Mode({ key, context });
      const what = `case ${i}: ${data.length} bytes, leaves of ${leaf}, native from ${split}`;
      const native = hashSubtrees(data.subarray(split), split, leaf, mode);
      // The same call with the options in place of the Mode, and into a caller's buffer.
      const out = new Uint8Array(native.length + 64).fill(0xa5);
      const into = hashSubtrees(data.subarray(split), BigInt(split), leaf, { key, context }, out);
      assert.equal(bytesToHex(into), bytesToHex(native), what);
      assert.equal(into.buffer, out.buffer, what);
      assert.ok(
        out.subarray(native.length).every((b) => b === 0xa5),
        `${what}: bytes past the values written`,
      );
      assert.equal(bytesToHex(native), bytesToHex(coreHashSubtrees(data.subarray(split), split, leaf, mode)), what);
      const cvs = split > 0 ? [coreHashSubtrees(data.subarray(0, split), 0, leaf, mode), native] : [native];
      const all = new Uint8Array(cvs.reduce((n, c) => n + c.length, 0));
      cvs.reduce((at, c) => (all.set(c, at), at + c.length), 0);
      const stack = new ChainingValueStack(mode);
      for (let at = 0, k = 0; at < data.length; at += leaf, k++)
        stack.push(all.subarray(32 * k, 32 * k + 32), at, Math.min(leaf, data.length - at));
      assert.equal(bytesToHex(stack.digest()), official[i], what);
    }
  });

  it('takes offsets past 2^32 chunks and bigint offsets, as the core does', () => {
    const data = rng.bytes(3 * 4096 + 5);
    for (const offset of [2 ** 42, 2 ** 52 + 4096 * 3, (2n ** 53n - 4n) * 1024n]) {
      assert.equal(
        bytesToHex(hashSubtrees(data, offset, 4096)),
        bytesToHex(coreHashSubtrees(data, offset, 4096)),
        `at ${offset}`,
      );
    }
  });

  it('takes the inputs the core takes: a string, an ArrayBuffer, another view', () => {
    const bytes = new TextEncoder().encode('é'.repeat(3000));
    const want = bytesToHex(coreHashSubtrees(bytes, 0, 1024));
    assert.equal(bytesToHex(hashSubtrees('é'.repeat(3000), 0, 1024)), want);
    assert.equal(bytesToHex(hashSubtrees(bytes.slice().buffer, 0, 1024)), want);
    assert.equal(bytesToHex(hashSubtrees(new DataView(bytes.buffer), 0, 1024)), want);
  });

  it('refuses what the core refuses, with the same error naming the argument', () => {
    const input = new Uint8Array(4096);
    const calls: [string, (f: typeof hashSubtrees) => unknown][] = [
      ['input a number', (f) => f(5 as never, 0, 1024)],
      ['input empty', (f) => f(new Uint8Array(0), 0, 1024)],
      ['input a lone surrogate', (f) => f('a\ud800', 0, 1024)],
      ['inputOffset negative', (f) => f(input, -1024, 1024)],
      ['inputOffset a string', (f) => f(input, '0' as never, 1024)],
      ['inputOffset not a multiple of 1024', (f) => f(input, 1000, 1024)],
      ['inputOffset not a multiple of subtreeLen', (f) => f(input, 1024, 2048)],
      ['inputOffset past 2^63', (f) => f(input, 2n ** 64n, 1024)],
      ['subtreeLen not a power of two', (f) => f(input, 0, 3072)],
      ['subtreeLen below a chunk', (f) => f(input, 0, 512)],
      ['subtreeLen past 2^40', (f) => f(input, 0, 2 ** 41)],
      ['a short key', (f) => f(input, 0, 1024, { key: new Uint8Array(31) })],
      ['key and context', (f) => f(input, 0, 1024, { key: new Uint8Array(32), context: 'c' })],
      ['dkLen', (f) => f(input, 0, 1024, { dkLen: 64 } as never)],
    ];
    for (const [what, call] of calls) {
      let want: unknown;
      assert.throws(
        () => call(coreHashSubtrees as typeof hashSubtrees),
        (e) => ((want = e), true),
        what,
      );
      assert.throws(
        () => call(hashSubtrees),
        (e: Error) => {
          assert.equal(e.constructor, (want as Error).constructor, what);
          assert.equal(e.message, (want as Error).message, what);
          return true;
        },
        what,
      );
    }
  });

  it('refuses an out buffer too short or over the input, writing nothing', () => {
    const input = rng.bytes(5000);
    const short = new Uint8Array(159).fill(1);
    assert.throws(() => hashSubtrees(input, 0, 1024, undefined, short), /out must hold at least 160 bytes, got 159/);
    assert.ok(short.every((b) => b === 1));
    assert.throws(() => hashSubtrees(input, 0, 1024, undefined, 'x' as never), TypeError);
    const shared = new Uint8Array(8192);
    assert.throws(
      () => hashSubtrees(shared.subarray(0, 5000), 0, 1024, undefined, shared.subarray(4900)),
      /out must not overlap input/,
    );
    // Beside it in the same buffer is fine.
    const beside = hashSubtrees(shared.subarray(0, 5000), 0, 1024, undefined, shared.subarray(5000));
    assert.equal(bytesToHex(beside), bytesToHex(coreHashSubtrees(new Uint8Array(5000), 0, 1024)));
  });

  it('names the platform in the error where it has no addon', async () => {
    // A fresh copy of the loader in a child process, on a platform no addon is built for.
    const { spawnSync } = await import('node:child_process');
    const code = `
      Object.defineProperty(process, 'arch', { value: 'mips' });
      const { hashSubtrees } = await import('@blake3-web/native');
      try { hashSubtrees(new Uint8Array(2048), 0, 1024); console.log('loaded'); }
      catch (e) { console.log(e.name + ': ' + e.message); }`;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
      encoding: 'utf8',
      cwd: new URL('..', import.meta.url),
    });
    assert.match(r.stdout, /^NativeAddonError: @blake3-web\/native has no addon for linux-mips-(gnu|musl)/, r.stderr);
    assert.match(r.stdout, /install @blake3-web\/native-linux-mips-/);
    assert.equal(new NativeAddonError('x').name, 'NativeAddonError');
  });
});
