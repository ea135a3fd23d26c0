// The WebAssembly writer behind the wasm-simd backend: LEB128 immediates, computed lengths, and
// the generated kernel module pinned byte for byte (the generator must stay deterministic).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { s32, u32 } from '../src/wasm/_leb128.ts';
import { encodeModule, func, FunctionBody, name, section, vec } from '../src/wasm/_module.ts';
import { hashModule, kernelModule, manyModule } from '../src/wasm/_generator.ts';
import { HASH_PAGES } from '../src/wasm/_layout.ts';
import { PAGES } from '../src/wasm/_many-layout.ts';
import { simdSupported } from '../src/wasm/_detect.ts';
import { engineKernelOptions, jsEngine } from '../src/wasm/_engine.ts';
import { kernelBytes } from '../src/wasm/_wasm-backend.ts';
import { I32X4_ADD, I32_ADD, I32_STORE, TYPE_I32, TYPE_V128 } from '../src/wasm/_opcodes.ts';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
/** The generated kernel's SHA-256: a change to the generator must update it on purpose. */
const KERNEL_SHA256 = '6b2c08a07132769513211f47c83bbb627146d4a0ef320ae6bd22012ba7a442c5';
const shippedKernel = new URL('../dist/kernel.wasm', import.meta.url);

/** A cursor over bytes that reads unsigned LEB128 and raw runs. */
class Reader {
  pos = 0;
  readonly bytes: Uint8Array;
  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }
  u32(): number {
    let n = 0;
    for (let shift = 0; ; shift += 7) {
      const b = this.bytes[this.pos++];
      if (b === undefined) throw new RangeError('a LEB128 runs past the end');
      n += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return n;
    }
  }
  /** Moves past a leading u32 length, to what it measures. */
  atBody(): this {
    this.u32();
    return this;
  }
  /** Skips a run whose length comes first, as a u32. */
  skip(): void {
    const n = this.u32();
    this.pos += n;
  }
  /** The bytes from `from` to the cursor. */
  since(from: number): number[] {
    return [...this.bytes.subarray(from, this.pos)];
  }
  /** A vector's entries, each read by `entry`. */
  vec<T>(entry: () => T): T[] {
    return Array.from({ length: this.u32() }, entry);
  }
}

/** Each exported function's signature and code entry, by export name, read back from a module's sections. */
function functionBodies(module: Uint8Array): Map<string, { type: number[]; code: number[] }> {
  const sections = new Map<number, Reader>();
  for (const r = new Reader(module.subarray(8)); r.pos < r.bytes.length;) {
    const id = r.bytes[r.pos++];
    const from = r.pos;
    r.skip();
    sections.set(id, new Reader(r.bytes.subarray(from, r.pos)).atBody());
  }
  const [types, funcs, exps, code] = [1, 3, 7, 10].map((id) => sections.get(id)!);
  const typeEntries = types.vec(() => {
    const from = types.pos++;
    types.skip(); // params
    types.skip(); // results
    return types.since(from);
  });
  const funcTypes = funcs.vec(() => funcs.u32());
  const codeEntries = code.vec(() => {
    const from = code.pos;
    code.skip();
    return code.since(from);
  });
  const out = new Map<string, { type: number[]; code: number[] }>();
  for (const e of exps.vec(() => {
    const from = exps.pos;
    exps.skip();
    const name = String.fromCharCode(...exps.since(from).slice(1));
    return { name, kind: exps.bytes[exps.pos++], index: exps.u32() };
  }))
    if (e.kind === 0) out.set(e.name, { type: typeEntries[funcTypes[e.index]], code: codeEntries[e.index] });
  return out;
}

describe('LEB128', () => {
  it('u32: edge values', () => {
    const cases: [number, number[]][] = [
      [0, [0x00]],
      [1, [0x01]],
      [63, [0x3f]],
      [64, [0x40]],
      [127, [0x7f]],
      [128, [0x80, 0x01]],
      [624485, [0xe5, 0x8e, 0x26]],
      [2 ** 31 - 1, [0xff, 0xff, 0xff, 0xff, 0x07]],
      [2 ** 32 - 1, [0xff, 0xff, 0xff, 0xff, 0x0f]],
    ];
    for (const [n, bytes] of cases) assert.deepEqual(u32(n), bytes, `u32(${n})`);
  });

  it('s32: edge values (the sign lives in bit 6 of the last byte)', () => {
    const cases: [number, number[]][] = [
      [0, [0x00]],
      [1, [0x01]],
      [63, [0x3f]],
      [64, [0xc0, 0x00]],
      [-1, [0x7f]],
      [-64, [0x40]],
      [-65, [0xbf, 0x7f]],
      [-123456, [0xc0, 0xbb, 0x78]],
      [2 ** 31 - 1, [0xff, 0xff, 0xff, 0xff, 0x07]],
      [-(2 ** 31), [0x80, 0x80, 0x80, 0x80, 0x78]],
    ];
    for (const [n, bytes] of cases) assert.deepEqual(s32(n), bytes, `s32(${n})`);
  });

  it('rejects values outside the type', () => {
    for (const n of [-1, 2 ** 32, 1.5, NaN]) assert.throws(() => u32(n), RangeError, `u32(${n})`);
    for (const n of [2 ** 31, -(2 ** 31) - 1, 2 ** 32 - 1, 0.5]) assert.throws(() => s32(n), RangeError, `s32(${n})`);
  });

  it('i32.const takes uint32 values modulo 2^32, as a signed immediate', () => {
    const body = (n: number) => [...new FunctionBody(0).i32(n).encode()];
    assert.deepEqual(body(0xffffffff), body(-1));
    assert.deepEqual(body(0x80000000), body(-(2 ** 31)));
  });
});

describe('module writer', () => {
  it('vectors, names and sections carry computed lengths', () => {
    assert.deepEqual(vec([[1, 2], [3]]), [2, 1, 2, 3]);
    assert.deepEqual(vec(new Array(200).fill([7])).slice(0, 3), [0xc8, 0x01, 7]);
    assert.deepEqual(name('xof'), [3, 0x78, 0x6f, 0x66]);
    const big = section(10, new Array(300).fill(0));
    assert.deepEqual(big.slice(0, 3), [10, 0xac, 0x02]);
    assert.equal(big.length, 303);
  });

  it('locals are declared in runs of one type after the params', () => {
    const f = new FunctionBody(2);
    assert.equal(f.local(TYPE_I32), 2);
    assert.equal(f.local(TYPE_I32), 3);
    assert.equal(f.local(TYPE_V128), 4);
    assert.equal(f.local(TYPE_I32), 5);
    // size, 3 runs: (2 x i32) (1 x v128) (1 x i32), then `end`
    assert.deepEqual([...f.encode()], [8, 3, 2, 0x7f, 1, 0x7b, 1, 0x7f, 0x0b]);
  });

  it('a small module validates and runs', () => {
    const add = func('add', 2, (f, [a, b]) => f.i32(0).get(a).get(b).op(I32_ADD).i32(-65).op(I32_ADD).mem(I32_STORE));
    const bytes = encodeModule([add], 1);
    assert.ok(WebAssembly.validate(bytes));
    const exports = new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports as {
      add: (a: number, b: number) => void;
      memory: WebAssembly.Memory;
    };
    exports.add(100, 2);
    const memory = exports.memory;
    assert.equal(new Int32Array(memory.buffer)[0], 37);
    assert.equal(memory.buffer.byteLength, 65536);
  });

  it('a recorded template replays on other locals exactly as if emitted there', () => {
    const t = new FunctionBody(0).get(0).get(1).simd(I32X4_ADD).tee(0).template();
    const replayed = new FunctionBody(10).replay(t, [7, 9]).replay(t, [3, 4]).encode();
    const direct = new FunctionBody(10)
      .get(7)
      .get(9)
      .simd(I32X4_ADD)
      .tee(7)
      .get(3)
      .get(4)
      .simd(I32X4_ADD)
      .tee(3)
      .encode();
    assert.deepEqual([...replayed], [...direct]);
    assert.throws(() => new FunctionBody(0).replay(t, [128, 0]), RangeError);
  });
});

describe('kernel module', () => {
  it('SIMD is detected here (Node 20 has WebAssembly SIMD)', () => {
    assert.equal(simdSupported(), true);
  });

  it('is deterministic and pinned: a change to the generator must update this digest on purpose', () => {
    const bytes = kernelModule();
    assert.deepEqual(kernelModule(), bytes);
    assert.ok(WebAssembly.validate(bytes));
    assert.equal(sha256(bytes), KERNEL_SHA256);
    assert.ok(PAGES >= 1 && PAGES <= 10);
  });

  it("the pieces generated at run time are pinned too, in every engine's shape", () => {
    const pinned: [string, Uint8Array][] = [
      ['386928e299dd1508ee13a8d387a88212bd03408d00bb73e2c4ed9f9ee0f82aa9', hashModule()],
      [
        '6887472a8f5e6d42511e2eb53a8702188ca9a877202c70fc970351a608227478',
        hashModule({ order: 'g', rotate: 'shuffle' }),
      ],
      [
        '732ee89c9d30dcb73ca3c3f6f5641bd3f9c1519521e4ef21b998d26d53385818',
        hashModule({ order: 'steps', rotate: 'shuffle' }),
      ],
      ['13eed21c210d84fe28aee72de388054f8eb2e421905819a858a5891f713e6291', manyModule()],
    ];
    for (const [digest, bytes] of pinned) assert.equal(sha256(bytes), digest);
  });

  it('the shipped dist/kernel.wasm is what the run-time generator makes, byte for byte', () => {
    assert.ok(existsSync(shippedKernel), 'dist/kernel.wasm is missing: run `pnpm build`');
    const shipped = new Uint8Array(readFileSync(shippedKernel));
    assert.deepEqual(shipped, kernelModule());
    assert.equal(sha256(shipped), KERNEL_SHA256);
  });

  it("the engine is told apart, and its run-time kernel has the engine's shape (V8: the shipped one)", () => {
    const bun = typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined';
    assert.equal(jsEngine(), bun ? 'javascriptcore' : 'other');
    if (!bun) assert.deepEqual(engineKernelOptions(), {});
    assert.deepEqual(kernelBytes(), hashModule(engineKernelOptions()));
  });

  it("the pieces generated at run time hold the kernel's functions, byte for byte", () => {
    const whole = functionBodies(kernelModule());
    assert.deepEqual([...whole.keys()], ['chunks', 'xof', 'many', 'one']);
    const hash = functionBodies(hashModule());
    const many = functionBodies(manyModule());
    assert.deepEqual([...hash.keys()], ['chunks', 'xof', 'one']);
    assert.deepEqual([...many.keys()], ['many']);
    for (const [name, body] of [...hash, ...many]) assert.deepEqual(body, whole.get(name), name);
    for (const order of ['g', 'steps'] as const)
      for (const rotate of ['shuffle', 'shift'] as const) {
        const options = { order, rotate };
        assert.deepEqual(
          functionBodies(hashModule(options)).get('chunks'),
          functionBodies(kernelModule(options)).get('chunks'),
          `${order} ${rotate}`,
        );
      }
  });

  it('the pieces validate, the hash piece on the pages its areas need', () => {
    assert.ok(WebAssembly.validate(hashModule()));
    assert.ok(WebAssembly.validate(manyModule()));
    assert.ok(HASH_PAGES >= 1 && HASH_PAGES < PAGES);
    const pages = (bytes: Uint8Array<ArrayBuffer>) =>
      (new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports.memory as WebAssembly.Memory).buffer.byteLength /
      65536;
    assert.equal(pages(hashModule()), HASH_PAGES);
    assert.equal(pages(manyModule()), PAGES);
  });

  it('every variant validates', () => {
    for (const order of ['g', 'steps'] as const)
      for (const rotate of ['shuffle', 'shift'] as const)
        assert.ok(WebAssembly.validate(kernelModule({ order, rotate })), `${order} ${rotate}`);
  });
});
