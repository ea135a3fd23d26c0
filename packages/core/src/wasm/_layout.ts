// The kernel's memory layout (bytes): one fixed memory reused by every call.
//   IN_PTR      input chunks, copied in by JS right before a call (MAX_CHUNKS KiB)
//   CV_PTR      chaining values, word-sliced in groups of 4: CV k, word j at
//               CV_PTR + 128 * (k >> 2) + 16 * j + 4 * (k & 3). Chunks write them that way and
//               parents read and write them that way, so no level ever transposes a CV.
//   KEY_PTR     the 8 key words of the hash
//   ROOT_PTR    the root node for XOF output: 8 chaining-value words, then the 16 block words
//   XOF_PTR     output blocks, in stream order
// then the areas of `many` (_many-layout.ts), in a module of their own so that bundles which
// never hash batches leave them out.
import { BLOCK_LEN, CHUNK_LEN } from '../_constants.js';

export const MAX_CHUNKS: number = 64;
export const XOF_MAX_GROUPS: number = 64;
export const IN_PTR: number = 0;
export const CV_PTR: number = IN_PTR + MAX_CHUNKS * CHUNK_LEN;
// One spare group: the last parent level reads a right-hand group that holds no valid CV.
const CV_BYTES = (MAX_CHUNKS / 4 + 1) * 128;
export const KEY_PTR: number = CV_PTR + CV_BYTES;
export const ROOT_PTR: number = KEY_PTR + 32;
export const XOF_PTR: number = ROOT_PTR + 96;
/** The end of the areas above; the `many` areas (_many-layout.ts) follow. */
export const XOF_END: number = XOF_PTR + XOF_MAX_GROUPS * 4 * BLOCK_LEN;
/** Pages of the areas above: all that `chunks`, `xof` and `one` touch. */
export const HASH_PAGES: number = (XOF_END + 0xffff) >> 16;

/** What the module exports: its memory and its functions. */
export type KernelExports = {
  readonly memory: WebAssembly.Memory;
  readonly chunks: (n: number, counterLo: number, counterHi: number, flags: number, merges: number) => void;
  readonly xof: (groups: number, counterLo: number, counterHi: number, blockLen: number, flags: number) => void;
  readonly many: (count: number, flags: number, wide: number) => void;
  readonly one: (len: number, flags: number) => void;
};
