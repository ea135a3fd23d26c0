// BLAKE3 constants (spec, section 2).
export const OUT_LEN = 32;
export const KEY_LEN = 32;
export const BLOCK_LEN = 64;
export const CHUNK_LEN = 1024;
/** Chunk and output block counters are 64 bits, kept as two 32-bit words: hi = counter / 2^32. */
export const TWO_POW_32: number = 2 ** 32;
/** Enough chaining values for 2^54 chunks, i.e. inputs up to 2^64 bytes. */
export const MAX_DEPTH = 54;

export const CHUNK_START = 1;
export const CHUNK_END = 2;
export const PARENT = 4;
export const ROOT = 8;
export const KEYED_HASH = 16;
export const DERIVE_KEY_CONTEXT = 32;
export const DERIVE_KEY_MATERIAL = 64;

export const IV: readonly number[] = [
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];
