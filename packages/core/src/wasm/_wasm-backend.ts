import { BLOCK_LEN, CHUNK_LEN, ROOT } from '../_constants.js';
import type { Kernels } from '../_kernels.js';
import { hashModule } from './_generator.js';
import { engineKernelOptions } from './_engine.js';
import {
  CV_PTR,
  IN_PTR,
  KEY_PTR,
  MAX_CHUNKS,
  ROOT_PTR,
  XOF_MAX_GROUPS,
  XOF_PTR,
  type KernelExports,
} from './_layout.js';

const TWO_POW_32 = 0x100000000;

/** The hash piece of the kernel (`chunks`, `xof`, `one`), generated once, in the shape this engine runs fastest. */
let bytes: Uint8Array<ArrayBuffer> | undefined;
export function kernelBytes(): Uint8Array<ArrayBuffer> {
  return (bytes ??= hashModule(engineKernelOptions()));
}

/** Compiles and instantiates `bytes` synchronously; throws where the engine refuses (CSP, main-thread size limits). */
export function instantiateSync(bytes: Uint8Array<ArrayBuffer>): WebAssembly.Instance {
  return new WebAssembly.Instance(new WebAssembly.Module(bytes));
}

/** The same, asynchronously (allowed where synchronous compilation is not). */
export async function instantiate(bytes: Uint8Array<ArrayBuffer>): Promise<WebAssembly.Instance> {
  return WebAssembly.instantiate(await WebAssembly.compile(bytes));
}

/**
 * The wasm-simd kernels over one instance; its memory is scratch for every call (hashing never
 * re-enters). Every call runs in the kernel, however small: backend.ts decides which calls come here.
 */
export function wrap(instance: WebAssembly.Instance): Kernels {
  const entries = instance.exports as unknown as KernelExports;
  const buffer = entries.memory.buffer;
  const mem8 = new Uint8Array(buffer);
  const mem32 = new Uint32Array(buffer);
  const { chunks, xof, one } = entries;
  const CV_WORD = CV_PTR >> 2;

  return {
    name: 'wasm-simd',

    singleChunk(src, len, key, flags, dkLen) {
      // A short message in a longer buffer (a reused hasher's) is copied by bytes: a subarray per
      // call cost more than the copy (Firefox, reused hasher, 64 B: see docs/wasm-kernel.md).
      if (len === src.length) mem8.set(src, IN_PTR);
      else if (len <= BLOCK_LEN) for (let i = 0; i < len; i++) mem8[IN_PTR + i] = src[i];
      else mem8.set(src.subarray(0, len), IN_PTR);
      mem8.fill(0, IN_PTR + len, IN_PTR + (len === 0 ? BLOCK_LEN : (len + BLOCK_LEN - 1) & -BLOCK_LEN));
      mem32.set(key, KEY_PTR >> 2);
      one(len, flags);
      return mem8.slice(XOF_PTR, XOF_PTR + dkLen);
    },

    chunks(src, pos, n, counter, key, flags, merges, out, outPos) {
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
        if (lo >= TWO_POW_32) ((lo -= TWO_POW_32), (hi = (hi + 1) >>> 0));
      }
    },
  };
}
