import { BLOCK_LEN, CHUNK_LEN, ROOT } from '../_constants.js';
import { jsKernels, type Kernels } from '../_kernels.js';
import { CV_PTR, IN_PTR, KEY_PTR, MAX_CHUNKS, ROOT_PTR, XOF_MAX_GROUPS, XOF_PTR, kernelModule } from './_kernel-module.js';

export { MANY_CV, MANY_CV_SLOTS, MANY_HI_DELTA, MANY_IN, MANY_IN_LEN, MANY_JOBS, MANY_MAX_JOBS, MANY_MAX_MESSAGES, MANY_OUT } from './_kernel-module.js';

type KernelExports = {
  readonly memory: WebAssembly.Memory;
  readonly chunks: (n: number, counterLo: number, counterHi: number, flags: number, merges: number) => void;
  readonly xof: (groups: number, counterLo: number, counterHi: number, blockLen: number, flags: number) => void;
  readonly many: (count: number, flags: number, wide: number) => void;
  readonly one: (len: number, flags: number) => void;
};

/**
 * SIMD across messages (`many` in the generator): the caller writes padded input at MANY_IN and
 * jobs at MANY_JOBS through the views, calls `run`, and reads each job's output where the job
 * said (root outputs at MANY_OUT, words 8-15 MANY_HI_DELTA later when `wide`).
 */
export type ManyKernel = {
  readonly mem8: Uint8Array;
  readonly mem32: Uint32Array;
  run(count: number, key: Uint32Array, flags: number, wide: boolean): void;
};

/** The wasm-simd kernels plus the batch entry, which only the wasm backend has. */
export type WasmKernels = Kernels & {
  readonly many: ManyKernel;
  /** The first `dkLen` (at most 32) bytes of the hash of `input`, a whole message of one chunk or less. */
  singleChunk(input: Uint8Array, key: Uint32Array, flags: number, dkLen: number): Uint8Array;
};

/**
 * Below this many chunks per call the scalar path is faster: one chunk costs a whole 4-lane
 * group (2 KiB one-shot: 895 MB/s with the kernel on 2 lanes, 701 scalar; docs/wasm-kernel.md).
 */
export const WASM_MIN_CHUNKS = 2;
/**
 * From this many bytes a single-chunk message goes to the kernel's scalar `one` rather than the
 * JS compress: the copy in and the call cost less than the JS rounds save (Node: 128 B 595 vs
 * 499 MB/s, 1 KiB 878 vs 673; 64 B 343 vs 390).
 */
export const WASM_MIN_SINGLE = 128;
/** Below this many output blocks per call the scalar path is faster (2 blocks: 203 vs 163 MB/s; 1: 102 vs 105). */
export const WASM_MIN_XOF_BLOCKS = 2;

const TWO_POW_32 = 0x100000000;

/** The kernel module's bytes, generated once. */
let bytes: Uint8Array<ArrayBuffer> | undefined;
export function kernelBytes(): Uint8Array<ArrayBuffer> {
  return (bytes ??= kernelModule());
}

/** Compiles the kernel synchronously; throws where the engine refuses (CSP, main-thread size limits). */
export function compileKernelSync(): WasmKernels {
  return wrap(new WebAssembly.Instance(new WebAssembly.Module(kernelBytes())));
}

/** Compiles the kernel asynchronously (allowed where synchronous compilation is not). */
export async function compileKernel(): Promise<WasmKernels> {
  const module = await WebAssembly.compile(kernelBytes());
  return wrap(await WebAssembly.instantiate(module));
}

/**
 * The wasm-simd kernels over one instance; its memory is scratch for every call (hashing never
 * re-enters). Calls smaller than the thresholds go to the JS kernels (tests lower them to 1).
 */
export function wrap(instance: WebAssembly.Instance, minChunks = WASM_MIN_CHUNKS, minXofBlocks = WASM_MIN_XOF_BLOCKS): WasmKernels {
  const entries = instance.exports as unknown as KernelExports;
  const buffer = entries.memory.buffer;
  const mem8 = new Uint8Array(buffer);
  const mem32 = new Uint32Array(buffer);
  const { chunks, xof, many, one } = entries;
  const CV_WORD = CV_PTR >> 2;

  return {
    name: 'wasm-simd',

    many: {
      mem8,
      mem32,
      run(count, key, flags, wide) {
        mem32.set(key, KEY_PTR >> 2);
        many(count, flags, wide ? 1 : 0);
      },
    },

    singleChunk(input, key, flags, dkLen) {
      const len = input.length;
      mem8.set(input, IN_PTR);
      mem8.fill(0, IN_PTR + len, IN_PTR + (len === 0 ? BLOCK_LEN : (len + BLOCK_LEN - 1) & -BLOCK_LEN));
      mem32.set(key, KEY_PTR >> 2);
      one(len, flags);
      return mem8.slice(XOF_PTR, XOF_PTR + dkLen);
    },

    chunks(src, pos, n, counter, key, flags, merges, out, outPos) {
      if (n < minChunks) return jsKernels.chunks(src, pos, n, counter, key, flags, merges, out, outPos);
      if (n > MAX_CHUNKS) throw new RangeError(`at most ${MAX_CHUNKS} chunks per kernel call, got ${n}`);
      mem8.set(src.subarray(pos, pos + n * CHUNK_LEN), IN_PTR);
      mem32.set(key, KEY_PTR >> 2);
      chunks(n, counter >>> 0, (counter / TWO_POW_32) >>> 0, flags, merges);
      // CV k, word j is at word CV_WORD + 32 * (k >> 2) + 4 * j + (k & 3).
      const count = n >> merges;
      for (let k = 0; k < count; k++) {
        const base = CV_WORD + 32 * (k >> 2) + (k & 3);
        const o = outPos + 8 * k;
        for (let j = 0; j < 8; j++) out[o + j] = mem32[base + 4 * j];
      }
    },

    rootBlocks(node, out, outPos, blocks, lo, hi) {
      if (blocks < minXofBlocks) return jsKernels.rootBlocks(node, out, outPos, blocks, lo, hi);
      mem32.set(node.cv, ROOT_PTR >> 2);
      mem32.set(node.block, (ROOT_PTR >> 2) + 8);
      const flags = node.flags | ROOT;
      while (blocks > 0) {
        const groups = Math.min(XOF_MAX_GROUPS, Math.ceil(blocks / 4));
        xof(groups, lo, hi, node.blockLen, flags);
        const n = Math.min(blocks, groups * 4);
        out.set(mem8.subarray(XOF_PTR, XOF_PTR + n * BLOCK_LEN), outPos);
        outPos += n * BLOCK_LEN;
        blocks -= n;
        lo += n;
        if (lo >= TWO_POW_32) (lo -= TWO_POW_32), (hi = (hi + 1) >>> 0);
      }
    },
  };
}
