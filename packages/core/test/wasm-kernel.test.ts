// The wasm-simd kernel against the scalar path, with the cases where lane arithmetic, counter
// carries, group edges and tree planning go wrong: chunk counters around 2^31 and 2^32, lengths
// around every 4 KiB multiple, update split points, keyed and derive_key flags, XOF positions
// straddling 4-block groups and 2^32 blocks. A small reference tree (reference_impl's shape, on
// the scalar compress) checks the tree planning independently of both backends.
import { blake3, bytesToHex, isBackendAvailable, setBackend, type Blake3Opts } from '@blake3-web/core';
import { hashSubtree, maxSubtreeLen } from '@blake3-web/core/hazmat';
import { Random, testSeed } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compress } from '../src/_compress.ts';
import { CHUNK_END, CHUNK_START, DERIVE_KEY_MATERIAL, IV, KEYED_HASH, PARENT, ROOT } from '../src/_constants.ts';
import { jsKernels } from '../src/_js-backend.ts';
import { MAX_CALL_CHUNKS, type Kernels } from '../src/_kernels.ts';
import { Output } from '../src/_output.ts';
import { kernelModule, type KernelOptions } from '../src/wasm/_generator.ts';
import { pairedHashModule } from '../src/wasm/_paired.ts';
import { wrap } from '../src/wasm/_wasm-backend.ts';

const seed = testSeed();
const rng = new Random(seed ^ 0x3a5d);
const TWO_32 = 2 ** 32;
const COUNTERS = [
  0,
  1,
  2 ** 31 - 1,
  2 ** 31 - 3,
  TWO_32 - 1,
  TWO_32 - 2,
  TWO_32 - 63,
  TWO_32,
  TWO_32 + 1,
  2 ** 40 + 5,
  2 ** 52 - 7,
];
const MODES: readonly { name: string; key: Uint32Array; flags: number }[] = [
  { name: 'hash', key: Uint32Array.from(IV), flags: 0 },
  { name: 'keyed', key: new Uint32Array(rng.bytes(32).buffer), flags: KEYED_HASH },
  { name: 'derive_key', key: new Uint32Array(rng.bytes(32).buffer), flags: DERIVE_KEY_MATERIAL },
];

// Every call goes to WASM, even single chunks and single blocks (lanes 1-3 then hold garbage).
/**
 * Chunk-round shapes of the generator: interleaved groups, instruction order, rotations by 16 and
 * 8, left shifts; `paired`: two groups paired in memory for V8's revectorizer (_paired.ts).
 */
const VARIANTS: readonly (KernelOptions & { paired?: true })[] = [
  { interleave: 2, order: 'g', rotate: 'shuffle' },
  { interleave: 1, order: 'g', rotate: 'shuffle' },
  { interleave: 1, order: 'g', rotate: 'shift' },
  { interleave: 1, order: 'steps', rotate: 'shuffle' },
  { interleave: 1, order: 'steps', rotate: 'shift' },
  { interleave: 2, order: 'steps', rotate: 'shift' },
  { order: 'steps', rotate: 'shuffle', shl: 'mul' },
  { order: 'g', rotate: 'shuffle', shl: 'mul' },
  { order: 'steps', rotate: 'shift', shl: 'mul' },
  { paired: true },
  { paired: true, order: 'g', rotate: 'shuffle' },
];
const wasm: Kernels = wrap(new WebAssembly.Instance(new WebAssembly.Module(kernelModule())));

/** The same bytes at byte offset `misalign` of a fresh buffer. */
function at(data: Uint8Array, misalign: number): Uint8Array {
  const buf = new Uint8Array(data.length + misalign + 8);
  buf.set(data, misalign);
  return buf.subarray(misalign, misalign + data.length);
}

describe(`wasm-simd kernel against the scalar kernel (seed ${seed})`, () => {
  it('chunks: every count 1-64, every merge depth, counters around 2^31 and 2^32, all modes, misaligned input', () => {
    for (let n = 1; n <= MAX_CALL_CHUNKS; n++) {
      const data = rng.bytes(n * 1024);
      for (let merges = 0; n % 2 ** merges === 0; merges++) {
        const counter = n <= 8 || merges === 0 ? undefined : rng.pick(COUNTERS);
        for (const c of counter === undefined ? COUNTERS : [counter]) {
          const mode = rng.pick(MODES);
          const src = at(data, rng.int(0, 3));
          const outPos = rng.int(0, 5) * 8;
          const expected = new Uint32Array(600).fill(0xdeadbeef);
          const got = new Uint32Array(600).fill(0xdeadbeef);
          jsKernels.chunks(src, 0, n, c, mode.key, mode.flags, merges, expected, outPos);
          wasm.chunks(src, 0, n, c, mode.key, mode.flags, merges, got, outPos);
          assert.deepEqual(got, expected, `n=${n} merges=${merges} counter=${c} ${mode.name}`);
        }
      }
    }
  });

  it('chunks: groups straddling 2^32 chunk counters see the carry in each lane', () => {
    for (const c of [TWO_32 - 1, TWO_32 - 2, TWO_32 - 3, TWO_32 - 4, TWO_32 - 5, 2 * TWO_32 - 1]) {
      const data = rng.bytes(8 * 1024);
      const expected = new Uint32Array(64),
        got = new Uint32Array(64);
      jsKernels.chunks(data, 0, 8, c, MODES[0].key, 0, 0, expected, 0);
      wasm.chunks(data, 0, 8, c, MODES[0].key, 0, 0, got, 0);
      assert.deepEqual(got, expected, `counter ${c}`);
    }
  });

  it('every kernel variant (loads, interleave, order, rotate, shl, paired) agrees with the scalar kernel', () => {
    const modules = new Set<string>();
    for (const loads of ['transpose', 'lanes'] as const) {
      for (const { paired, ...variant } of VARIANTS) {
        const options = { loads, ...variant };
        const bytes = paired ? pairedHashModule(options) : kernelModule(options);
        // An option the generator ignored would test the default shape twice.
        modules.add(bytes.join());
        const k = wrap(new WebAssembly.Instance(new WebAssembly.Module(bytes)));
        for (const n of [1, 3, 4, 5, 8, 12, 13, 16, 28, 32, 64]) {
          // Every counter where a group's count is one of the edges, a random one otherwise.
          for (const c of n === 12 || n === 64 ? COUNTERS : [rng.pick(COUNTERS)]) {
            const data = rng.bytes(n * 1024);
            const merges = n % 4 === 0 ? Math.log2(n & -n) : 0;
            const expected = new Uint32Array(n * 8),
              got = new Uint32Array(n * 8);
            jsKernels.chunks(data, 0, n, c, MODES[1].key, KEYED_HASH, merges, expected, 0);
            k.chunks(data, 0, n, c, MODES[1].key, KEYED_HASH, merges, got, 0);
            assert.deepEqual(
              got,
              expected,
              `${paired ? 'paired ' : ''}${JSON.stringify(options)}: n=${n} counter=${c}`,
            );
          }
        }
      }
    }
    assert.equal(modules.size, 2 * VARIANTS.length, 'every variant generates a module of its own');
  });

  it('singleChunk (scalar `one`, and the JS chunk state): every length 0-1024, all modes, every dkLen to 32, misaligned, over stale input', () => {
    const data = rng.bytes(1024);
    for (const mode of MODES) {
      // Each length right after a longer one: bytes past the end must read as zeros.
      for (let len = 1024; len >= 0; len--) {
        const input = at(data.subarray(0, len), len % 4);
        const dkLen = len === 1000 ? 0 : 1 + (len % 32);
        const expected = new Uint8Array(dkLen);
        new Output().setChunk(input, 0, len, 0, mode.key, mode.flags).rootBytes(expected);
        assert.equal(
          bytesToHex(wasm.singleChunk(input, len, mode.key, mode.flags, dkLen)),
          bytesToHex(expected),
          `${mode.name} len=${len}`,
        );
        // The first `len` bytes of a longer array: nothing after them is read.
        const longer = at(data, len % 4);
        assert.equal(
          bytesToHex(jsKernels.singleChunk(longer, len, mode.key, mode.flags, dkLen)),
          bytesToHex(expected),
          `js ${mode.name} len=${len}`,
        );
        assert.equal(
          bytesToHex(wasm.singleChunk(longer, len, mode.key, mode.flags, dkLen)),
          bytesToHex(expected),
          `wasm, longer, ${mode.name} len=${len}`,
        );
      }
    }
  });

  it('rootBlocks: any count, counters straddling groups, 2^32 blocks and 2^64, odd block lengths and flags', () => {
    for (let i = 0; i < 300; i++) {
      const node = new Output();
      node.cv.set(new Uint32Array(rng.bytes(32).buffer));
      node.block.set(new Uint32Array(rng.bytes(64).buffer));
      node.blockLen = rng.pick([0, 1, 3, 33, 63, 64]);
      node.flags = rng.pick([
        CHUNK_START | CHUNK_END,
        CHUNK_END,
        PARENT,
        PARENT | KEYED_HASH,
        CHUNK_END | DERIVE_KEY_MATERIAL,
      ]);
      const blocks = rng.pick([1, 2, 3, 4, 5, 7, 8, 9, 255, 256, 257, rng.int(1, 1200)]);
      const lo = rng.pick([
        0,
        1,
        2,
        3,
        TWO_32 - 1,
        TWO_32 - 2,
        TWO_32 - 3,
        TWO_32 - 4,
        TWO_32 - 5,
        2 ** 31 - 2,
        rng.u32(),
      ]);
      const hi = rng.pick([0, 1, TWO_32 - 1, rng.u32()]);
      const outPos = rng.int(0, 70);
      const expected = new Uint8Array(outPos + blocks * 64 + 9).fill(0xa5);
      const got = expected.slice();
      jsKernels.rootBlocks(node, expected, outPos, blocks, lo, hi);
      wasm.rootBlocks(node, got, outPos, blocks, lo, hi);
      assert.deepEqual(got, expected, `blocks=${blocks} lo=${lo} hi=${hi} blockLen=${node.blockLen}`);
      assert.equal(node.flags & ROOT, 0, 'the node is left as it was');
    }
  });
});

// ---- An independent reference: reference_impl's ChunkState and CV stack, one block at a time. ----

function referenceChunkCv(data: Uint8Array, key: Uint32Array, counter: number, flags: number): Output {
  const out = new Output();
  out.cv.set(key);
  const blocks = Math.max(1, Math.ceil(data.length / 64));
  for (let b = 0; b < blocks; b++) {
    const block = new Uint8Array(64);
    block.set(data.subarray(b * 64, b * 64 + 64));
    const words = new Uint32Array(block.buffer);
    const f = flags | (b === 0 ? CHUNK_START : 0) | (b === blocks - 1 ? CHUNK_END : 0);
    const len = Math.min(64, data.length - b * 64);
    if (b === blocks - 1) {
      out.block.set(words);
      out.blockLen = len;
      out.flags = f;
      out.counter = counter;
    } else {
      compress(out.cv, 0, words, 0, counter >>> 0, Math.floor(counter / TWO_32), 64, f, out.cv, 0, 8);
    }
  }
  return out;
}

/**
 * The final node of `data` hashed from chunk `startChunk` (hazmat's subtree numbering).
 * `fullChunkCvs`, when given, holds the CVs of the full chunks before the last, by index: calls
 * over prefixes of one buffer (same key, flags and start) fill it and reuse it.
 */
function referenceOutput(
  data: Uint8Array,
  key: Uint32Array,
  flags: number,
  startChunk = 0,
  fullChunkCvs?: Uint32Array[],
): Output {
  const stack: Uint32Array[] = [];
  const chunks = Math.max(1, Math.ceil(data.length / 1024));
  const cv = () => new Uint32Array(8);
  const parent = (l: Uint32Array, r: Uint32Array) => {
    const o = new Output();
    o.cv.set(key);
    o.block.set(l, 0);
    o.block.set(r, 8);
    o.blockLen = 64;
    o.flags = flags | PARENT;
    return o;
  };
  for (let i = 0; i < chunks - 1; i++) {
    let c = fullChunkCvs?.[i];
    if (c === undefined) {
      c = cv();
      referenceChunkCv(data.subarray(i * 1024, i * 1024 + 1024), key, startChunk + i, flags).chainingValue(c, 0);
      if (fullChunkCvs) fullChunkCvs[i] = c;
    }
    let total = i + 1;
    let top = c;
    while (total % 2 === 0) {
      const p = cv();
      parent(stack.pop()!, top).chainingValue(p, 0);
      top = p;
      total /= 2;
    }
    stack.push(top);
  }
  let out = referenceChunkCv(data.subarray((chunks - 1) * 1024), key, startChunk + chunks - 1, flags);
  while (stack.length > 0) {
    const c = cv();
    out.chainingValue(c, 0);
    out = parent(stack.pop()!, c);
  }
  return out;
}

function referenceHash(
  data: Uint8Array,
  opts: { key?: Uint8Array; fullChunkCvs?: Uint32Array[] } = {},
  length = 32,
  seek = 0n,
): string {
  const key = opts.key ? new Uint32Array(opts.key.slice().buffer) : Uint32Array.from(IV);
  const out = referenceOutput(data, key, opts.key ? KEYED_HASH : 0, 0, opts.fullChunkCvs);
  const bytes = new Uint8Array(length);
  const words = new Uint32Array(16);
  for (let i = 0; i < length; i++) {
    const p = seek + BigInt(i);
    const block = p >> 6n;
    if (i === 0 || (p & 63n) === 0n) {
      compress(
        out.cv,
        0,
        out.block,
        0,
        Number(block & 0xffffffffn),
        Number(block >> 32n),
        out.blockLen,
        out.flags | ROOT,
        words,
        0,
        16,
      );
    }
    bytes[i] = new Uint8Array(words.buffer)[Number(p & 63n)];
  }
  return bytesToHex(bytes);
}

function referenceSubtree(data: Uint8Array, offset: number): string {
  const c = new Uint32Array(8);
  referenceOutput(data, Uint32Array.from(IV), 0, offset / 1024).chainingValue(c, 0);
  return bytesToHex(new Uint8Array(c.buffer));
}

// ---- Public behaviour, every backend: identical bytes, and equal to the reference. ----

const backends = (['wasm-simd', 'js'] as const).filter(isBackendAvailable);

function eachBackend<T>(fn: () => T): T[] {
  return backends.map((b) => {
    setBackend(b);
    return fn();
  });
}

function allEqual(results: string[], expected: string, what: string): void {
  for (const [i, r] of results.entries()) assert.equal(r, expected, `${what} [${backends[i]}]`);
}

describe(`wasm-simd backend in the public API (seed ${seed})`, () => {
  it('the wasm-simd backend is available here', () => assert.ok(backends.includes('wasm-simd')));

  // About 2,100 lengths, 75 MB through each backend: seconds of CPU in Bun, whose runner would
  // otherwise stop a test at 5 s (node:test has no default limit).
  it(
    'one-shot: every length within 64 bytes of every 4 KiB multiple to 64 KiB, and the edges of those to 84 KiB',
    { timeout: 60_000 },
    () => {
      const data = rng.bytes(90 * 1024);
      const lengths = new Set<number>();
      for (let k = 1; k <= 16; k++) for (let d = -64; d <= 64; d++) lengths.add(k * 4096 + d);
      for (let k = 17; k <= 21; k++) for (const d of [-65, -64, -63, -1, 0, 1, 63, 64, 65]) lengths.add(k * 4096 + d);
      // Prefixes of one buffer: the reference hashes each full chunk once, not once per length.
      const fullChunkCvs: Uint32Array[] = [];
      for (const len of lengths) {
        const input = data.subarray(0, len);
        allEqual(
          eachBackend(() => bytesToHex(blake3(input))),
          referenceHash(input, { fullChunkCvs }),
          `${len} bytes`,
        );
      }
    },
  );

  it('keyed and derive_key through the kernel, equal across backends', () => {
    const key = rng.bytes(32);
    for (const len of [2048, 4096, 5000, 16 * 1024, 65536, 65537, 200_000]) {
      const input = rng.bytes(len);
      allEqual(
        eachBackend(() => bytesToHex(blake3(input, { key }))),
        referenceHash(input, { key }),
        `keyed ${len}`,
      );
      const ctx: Blake3Opts = { context: 'blake3-web 2026-01-01 wasm kernel test' };
      const [first, ...rest] = eachBackend(() => bytesToHex(blake3(input, ctx)));
      for (const r of rest) assert.equal(r, first, `derive_key ${len}`);
    }
  });

  it('update split points around chunk, group and subtree edges give the one-shot hash', () => {
    const data = rng.bytes(70 * 1024);
    const expected = referenceHash(data);
    const points = new Set<number>([0, 1, 63, 64, 65, data.length - 1, data.length]);
    for (const edge of [1024, 4096, 16384, 32768, 65536]) for (let d = -2; d <= 2; d++) points.add(edge + d);
    for (let i = 0; i < 20; i++) points.add(rng.int(0, data.length));
    for (const p of points) {
      allEqual(
        eachBackend(() => bytesToHex(blake3.create().update(data.subarray(0, p)).update(data.subarray(p)).digest())),
        expected,
        `split at ${p}`,
      );
    }
    for (const step of [1, 100, 1000, 1023, 1024, 1025, 4095, 16383, 16384, 16385, 65535]) {
      const input = step === 1 ? data.subarray(0, 5000) : data;
      allEqual(
        eachBackend(() => {
          const h = blake3.create();
          for (let i = 0; i < input.length; i += step) h.update(input.subarray(i, i + step));
          return bytesToHex(h.digest());
        }),
        step === 1 ? referenceHash(input) : expected,
        `updates of ${step} bytes`,
      );
    }
  });

  it('digest mid-stream does not disturb the state, clone continues independently', () => {
    const data = rng.bytes(50_000);
    allEqual(
      eachBackend(() => {
        const h = blake3.create();
        const seen: string[] = [];
        for (let i = 0; i < data.length; i += 7777) {
          h.update(data.subarray(i, i + 7777));
          seen.push(bytesToHex(h.digest()));
          seen.push(bytesToHex(h.clone().update(data.subarray(0, 3000)).digest()));
        }
        return seen.join();
      }),
      (() => {
        const seen: string[] = [];
        for (let i = 0; i < data.length; i += 7777) {
          const end = Math.min(data.length, i + 7777);
          seen.push(referenceHash(data.subarray(0, end)));
          const more = new Uint8Array(end + 3000);
          more.set(data.subarray(0, end));
          more.set(data.subarray(0, 3000), end);
          seen.push(referenceHash(more));
        }
        return seen.join();
      })(),
      'digests along the way',
    );
  });

  it('digests at every group boundary: lazily merged subtrees never compress the root', () => {
    const data = rng.bytes(20 * 16384 + 5);
    for (const step of [16384, 32768, 65536, 16384 * 3]) {
      allEqual(
        eachBackend(() => {
          const h = blake3.create();
          const seen: string[] = [bytesToHex(h.digest())];
          for (let i = 0; i < data.length; i += step) {
            h.update(data.subarray(i, i + step));
            seen.push(bytesToHex(h.digest()));
          }
          return seen.join();
        }),
        [0, ...Array.from({ length: Math.ceil(data.length / step) }, (_, k) => Math.min(data.length, (k + 1) * step))]
          .map((end) => referenceHash(data.subarray(0, end)))
          .join(),
        `updates of ${step} bytes`,
      );
    }
  });

  it('hashSubtree at offsets around 2^31 and 2^32 chunks (counter lo/hi per lane)', () => {
    for (const chunk of [2 ** 31 - 64, 2 ** 31, TWO_32 - 64, TWO_32 - 16, TWO_32, TWO_32 + 64, 2 ** 40]) {
      const offset = chunk * 1024;
      const max = maxSubtreeLen(offset)!;
      for (const len of [1, 1024, 1025, 4096, 8192 + 5, 16384, 65536].filter((l) => l <= max)) {
        const input = rng.bytes(len);
        allEqual(
          eachBackend(() => bytesToHex(hashSubtree(input, offset))),
          referenceSubtree(input, offset),
          `chunk ${chunk}, ${len} bytes`,
        );
      }
    }
  });

  it('XOF reads straddling 4-block groups and 2^32 blocks', () => {
    const input = rng.bytes(3000);
    for (const start of [
      0n,
      1n,
      63n,
      64n,
      200n,
      255n,
      256n,
      257n,
      (2n ** 32n - 3n) * 64n - 5n,
      (2n ** 32n - 1n) * 64n,
      2n ** 32n * 64n - 1n,
    ]) {
      for (const len of [1, 63, 64, 65, 255, 256, 257, 1000, 4133]) {
        allEqual(
          eachBackend(() => {
            const r = blake3.create().update(input).reader();
            r.position = start;
            return bytesToHex(r.read(len));
          }),
          referenceHash(input, {}, len, start),
          `${len} bytes at ${start}`,
        );
      }
    }
    allEqual(
      eachBackend(() => bytesToHex(blake3(input, { dkLen: 100_000 }))),
      referenceHash(input, {}, 100_000),
      'dkLen 100000',
    );
  });

  it('switching backends between updates: the state is the same whichever backend made it', () => {
    const data = rng.bytes(300_000);
    const key = new Uint8Array(MODES[1].key.buffer);
    const h = blake3.create({ key });
    let pos = 0;
    for (const [i, step] of [5000, 70_000, 16384, 1, 100_000, 3333, 90_000].entries()) {
      setBackend(backends[i % backends.length]);
      h.update(data.subarray(pos, pos + step));
      pos += step;
    }
    setBackend(backends[0]);
    const r = h.reader();
    r.position = 1000n;
    const got = bytesToHex(h.digest()) + bytesToHex(r.read(500));
    const input = data.subarray(0, pos);
    assert.equal(got, referenceHash(input, { key }) + referenceHash(input, { key }, 500, 1000n));
  });

  it('random inputs, modes, splits and outputs: identical across backends', () => {
    for (let i = 0; i < 40; i++) {
      const data = rng.bytes(
        rng.pick([rng.int(0, 5000), rng.int(0, 300_000), rng.int(1, 40) * 4096 + rng.int(-64, 64)]),
      );
      const opts: Blake3Opts = rng.pick([{}, { key: rng.bytes(32) }, { context: `ctx ${i}` }]);
      const dkLen = rng.pick([32, 64, 1, 700]);
      const splits = Array.from({ length: rng.int(0, 5) }, () => rng.int(0, data.length)).sort((a, b) => a - b);
      const [first, ...rest] = eachBackend(() => {
        const h = blake3.create({ ...opts, dkLen });
        let prev = 0;
        for (const s of [...splits, data.length]) (h.update(data.subarray(prev, s)), (prev = s));
        return bytesToHex(h.digest()) + bytesToHex(blake3(data, { ...opts, dkLen }));
      });
      for (const r of rest) assert.equal(r, first, `case ${i}: ${data.length} bytes`);
    }
  });
});
