import { describe } from '../_assert.js';
import { BLOCK_LEN, CHUNK_END, CHUNK_LEN, CHUNK_START, IV } from '../_constants.js';
import { jsKernels } from '../_js-backend.js';
import type { KernelNode, Kernels } from '../_kernels.js';
import { PAGES } from './_many-layout.js';
import { wasmManyJobs } from './_many.js';
import { wrap } from './_wasm-backend.js';

// A kernel module handed in by the caller (the package's kernel.wasm, precompiled by a runtime
// that refuses to compile bytes) is trusted only after it proved to be that kernel: the exact
// imports and exports, the function arities, the memory size, and every entry point agreeing
// with the JS kernels on a known input. Anything else is a TypeError, not a backend.

const EXPORTS: Readonly<Record<string, string | number>> = { chunks: 5, xof: 5, many: 3, one: 2, memory: 'memory' };

/** The module's shape against the kernel's; a description of the first difference, or undefined. */
function shapeMismatch(module: WebAssembly.Module): string | undefined {
  const imports = WebAssembly.Module.imports(module);
  if (imports.length > 0) return `it imports ${imports.map((i) => `${i.module}.${i.name}`).join(', ')}`;
  const entries = WebAssembly.Module.exports(module);
  const names = Object.keys(EXPORTS);
  const kinds = entries
    .map((e) => `${e.name}:${e.kind}`)
    .sort()
    .join(', ');
  const expected = names
    .map((n) => `${n}:${EXPORTS[n] === 'memory' ? 'memory' : 'function'}`)
    .sort()
    .join(', ');
  return kinds === expected ? undefined : `it exports ${kinds || 'nothing'}, the kernel ${expected}`;
}

function instanceMismatch(instance: WebAssembly.Instance): string | undefined {
  const entries = instance.exports;
  for (const [name, arity] of Object.entries(EXPORTS)) {
    if (typeof arity === 'number' && (entries[name] as (...args: number[]) => void).length !== arity) {
      return `its ${name} takes ${(entries[name] as () => void).length} arguments, the kernel's ${arity}`;
    }
  }
  const bytes = (entries.memory as WebAssembly.Memory).buffer.byteLength;
  return bytes === PAGES * 65536 ? undefined : `its memory has ${bytes / 65536} pages, the kernel's ${PAGES}`;
}

const equal = (a: ArrayLike<number>, b: ArrayLike<number>): boolean =>
  a.length === b.length && Array.prototype.every.call(a, (x: number, i: number) => x === b[i]);

/** Every entry point of `k` against the JS kernels on one known input; the first that differs. */
function answerMismatch(instance: WebAssembly.Instance): string | undefined {
  const k: Kernels = wrap(instance);
  const many = wasmManyJobs(instance);
  const key = Uint32Array.from(IV);
  // 8 chunks: the kernel's loop over two interleaved lane groups, then 3 levels of parents.
  const input = new Uint8Array(8 * CHUNK_LEN).map((_, i) => i % 251);
  const expected = new Uint32Array(8),
    got = new Uint32Array(8);
  jsKernels.chunks(input, 0, 8, 7, key, 0, 3, expected, 0);
  k.chunks(input, 0, 8, 7, key, 0, 3, got, 0);
  if (!equal(got, expected)) return 'its chunks() hash differs from the JS kernel';

  // One 64-byte message as a root node: its output blocks, its single-chunk hash, its batch hash.
  const block = new Uint32Array(input.buffer, 0, 16);
  const node: KernelNode = { cv: key, block, blockLen: BLOCK_LEN, flags: CHUNK_START | CHUNK_END };
  const blocks = new Uint8Array(4 * BLOCK_LEN),
    ref = new Uint8Array(4 * BLOCK_LEN);
  jsKernels.rootBlocks(node, ref, 0, 4, 0, 0);
  k.rootBlocks(node, blocks, 0, 4, 0, 0);
  if (!equal(blocks, ref)) return 'its xof() output differs from the JS kernel';
  const digest = ref.subarray(0, 32);
  if (!equal(k.singleChunk(input, BLOCK_LEN, key, 0, 32), digest)) return 'its one() hash differs from the JS kernel';

  many.input(input.subarray(0, BLOCK_LEN), 0, BLOCK_LEN);
  many.start(key, 0, false);
  many.chunk(0, BLOCK_LEN, 0, true, 0);
  many.run();
  return equal(many.output(0, 32), digest) ? undefined : 'its many() hash differs from the JS kernel';
}

function isModule(value: unknown): value is WebAssembly.Module {
  // By tag, not instanceof: the module may come from another realm (a vm context, an iframe).
  return Object.prototype.toString.call(value) === '[object WebAssembly.Module]';
}

const NAME = 'options.module';

/**
 * An instance of `module`, once it proved to be the kernel; a TypeError naming
 * `options.module` otherwise. Instantiates synchronously where allowed (a precompiled module needs
 * no code generation), else asynchronously (Chromium's main-thread size limit).
 */
export async function suppliedKernel(module: unknown): Promise<WebAssembly.Instance> {
  if (!isModule(module)) {
    throw new TypeError(
      `${NAME} must be a WebAssembly.Module (@blake3-web/core/kernel.wasm, compiled), got ${describe(module)}`,
    );
  }
  const wrong = (why: string) =>
    new TypeError(`${NAME} is not the @blake3-web/core kernel.wasm of this version: ${why}`);
  const shape = shapeMismatch(module);
  if (shape) throw wrong(shape);
  let instance: WebAssembly.Instance;
  try {
    instance = new WebAssembly.Instance(module);
  } catch {
    instance = await WebAssembly.instantiate(module);
  }
  const mismatch = instanceMismatch(instance) ?? answerMismatch(instance);
  if (mismatch) throw wrong(mismatch);
  return instance;
}
