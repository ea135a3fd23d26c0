// The choice of leaf hasher: the native addon only where it loads and gives the core's chaining
// values in every mode, else WASM ('auto') or a NativeHasherError ('native'), never a wrong hash.
import { bytesToHex } from '@blake3-web/core';
import { hashSubtrees, Mode } from '@blake3-web/core/hazmat';
import * as native from '@blake3-web/native';
import { FileStore } from '@tus/file-store';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { NATIVE_MIN_LEAF, NativeHasherError, subtreeHasherFor, type HashSubtrees } from '../src/_subtree-hasher.ts';
import { Blake3Store } from '../src/tus-store.ts';

/** The addon, wrong in one byte of its output where `wrongWhen` says. */
function flipped(wrongWhen: (input: Uint8Array, at: number, leaf: number, mode: Mode) => boolean) {
  const hash: HashSubtrees = (input, at, leaf, mode) => {
    const cvs = native.hashSubtrees(input, at, leaf, mode);
    if (wrongWhen(input, at, leaf, mode)) cvs[cvs.length - 1] ^= 1;
    return cvs;
  };
  return async () => ({ hashSubtrees: hash });
}

const notFound = async () => {
  throw Object.assign(new Error("Cannot find package '@blake3-web/native'"), { code: 'ERR_MODULE_NOT_FOUND' });
};

describe('the leaf hasher', () => {
  it("'auto' and 'native' take the built addon, which gives the core's values; 'wasm' the core", async () => {
    const input = new Uint8Array(300_000).map((_, i) => (i * 7) % 251);
    const mode = new Mode({ context: 'leaf hasher test' });
    for (const choice of ['auto', 'native', 'wasm'] as const) {
      const hasher = await subtreeHasherFor(choice);
      assert.equal(hasher.backend, choice === 'wasm' ? 'wasm' : 'native');
      assert.equal(hasher.hashSubtrees === hashSubtrees, choice === 'wasm');
      assert.equal(
        bytesToHex(hasher.hashSubtrees(input, 65536, 16384, mode)),
        bytesToHex(hashSubtrees(input, 65536, 16384, mode)),
      );
    }
  });

  it(`leaves under ${NATIVE_MIN_LEAF} bytes go to the core, where the addon is slower; larger ones to the addon`, async () => {
    let calls = 0;
    const counting = async () => ({
      hashSubtrees: ((...args: Parameters<HashSubtrees>) => {
        calls++;
        return native.hashSubtrees(...args);
      }) satisfies HashSubtrees,
    });
    const hasher = await subtreeHasherFor('native', counting);
    const input = new Uint8Array(64 << 10).fill(3);
    const mode = new Mode();
    for (const leaf of [1024, NATIVE_MIN_LEAF / 2, NATIVE_MIN_LEAF, 65536]) {
      calls = 0;
      const cvs = hasher.hashSubtrees(input, 0, leaf, mode);
      assert.equal(bytesToHex(cvs), bytesToHex(hashSubtrees(input, 0, leaf, mode)));
      assert.equal(calls, leaf < NATIVE_MIN_LEAF ? 0 : 1, `leaves of ${leaf}`);
    }
  });

  // Each a wrong addon the check must catch: in one mode, at an offset past zero, in the short last leaf.
  const wrong: [string, Parameters<typeof flipped>[0]][] = [
    ['always', () => true],
    ['keyed mode only', (_i, _a, _l, mode) => mode.options.key !== undefined],
    ['derive-key mode only', (_i, _a, _l, mode) => mode.options.context !== undefined],
    ['leaves of several chunks only', (_i, _a, leaf) => leaf > 1024],
    ['from offset zero only', (_i, at) => at === 0],
    ['past offset zero only', (_i, at) => at > 0],
    ['in the short last leaf only', (input, _a, leaf) => input.length % leaf !== 0],
  ];
  for (const [what, when] of wrong) {
    it(`an addon wrong ${what}: 'auto' hashes with WASM, 'native' is a NativeHasherError`, async () => {
      const auto = await subtreeHasherFor('auto', flipped(when));
      assert.equal(auto.backend, 'wasm');
      assert.equal(auto.hashSubtrees, hashSubtrees);
      await assert.rejects(subtreeHasherFor('native', flipped(when)), (e: Error) => {
        assert.ok(e instanceof NativeHasherError);
        assert.equal(e.name, 'NativeHasherError');
        assert.match(
          e.message,
          /opts\.hasher is 'native', but @blake3-web\/native cannot be used: its chaining values differ/,
        );
        return true;
      });
    });
  }

  it("an addon that is not installed, throws, or is no addon: 'auto' hashes with WASM, 'native' says why", async () => {
    const cases: [() => Promise<unknown>, RegExp][] = [
      [notFound, /it is not installed \(an optional peer dependency/],
      [
        async () => ({
          hashSubtrees: () => {
            throw new native.NativeAddonError('@blake3-web/native has no addon for linux-mips-gnu');
          },
        }),
        /it threw NativeAddonError: @blake3-web\/native has no addon for linux-mips-gnu/,
      ],
      [async () => ({}), /it has no hashSubtrees function/],
      [async () => Promise.reject(new Error('a broken binary')), /it failed to load: Error: a broken binary/],
    ];
    for (const [load, why] of cases) {
      assert.equal((await subtreeHasherFor('auto', load)).backend, 'wasm');
      await assert.rejects(
        subtreeHasherFor('native', load),
        (e: Error) => e instanceof NativeHasherError && why.test(e.message),
      );
    }
  });

  it("a store with hasher 'native' where no addon loads fails each write before the upload is touched; 'auto' falls back", () => {
    // A process on a platform no addon is built for: the real module, the real store.
    const directory = mkdtempSync(join(tmpdir(), 'blake3-native-'));
    try {
      const code = `
        Object.defineProperty(process, 'arch', { value: 'mips' });
        const { Blake3Store } = await import('./src/tus-store.ts');
        const { FileStore } = await import('@tus/file-store');
        const { Upload } = await import('@tus/utils');
        const { Readable } = await import('node:stream');
        const dir = ${JSON.stringify(directory)};
        const native = new Blake3Store(new FileStore({ directory: dir }), { hasher: 'native' });
        await native.create(new Upload({ id: 'u', size: 10, offset: 0 }));
        const failed = await native.write(Readable.from([Buffer.alloc(10)]), 'u', 0).then(() => 'written', (e) => e.name + ': ' + e.message);
        const { offset } = await native.getUpload('u');
        const auto = new Blake3Store(new FileStore({ directory: dir }), {});
        console.log(JSON.stringify({ failed, offset, auto: await auto.hasherBackend(), written: await auto.write(Readable.from([Buffer.alloc(10)]), 'u', 0) }));`;
      const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
        encoding: 'utf8',
        cwd: new URL('..', import.meta.url),
      });
      const out = JSON.parse(r.stdout || '{}') as Record<string, unknown>;
      assert.match(
        String(out.failed),
        /^NativeHasherError: opts\.hasher is 'native', but @blake3-web\/native cannot be used: it threw NativeAddonError: @blake3-web\/native has no addon for linux-mips/,
        r.stderr,
      );
      assert.equal(out.offset, 0, 'no byte written');
      assert.equal(out.auto, 'wasm');
      assert.equal(out.written, 10);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('refuses a hasher that is none of the three, naming the option', () => {
    const store = new FileStore({ directory: tmpdir() });
    assert.throws(() => new Blake3Store(store, { hasher: 'fast' as never }), {
      name: 'TypeError',
      message: "opts.hasher must be 'auto', 'native' or 'wasm', got a string of length 4",
    });
  });
});
