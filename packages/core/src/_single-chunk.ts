import { compress } from './_compress.js';
import { BLOCK_LEN, CHUNK_END, CHUNK_START, ROOT } from './_constants.js';
import { LITTLE_ENDIAN, swapWords, wordsToBytes } from './_bytes.js';
import { wasmKernels } from './backend.js';
import { WASM_MIN_SINGLE } from './wasm/_kernel.js';

const cv = new Uint32Array(8);
const block = new Uint32Array(16);
const block8 = new Uint8Array(block.buffer);
const root = new Uint32Array(8);
const root8 = new Uint8Array(root.buffer);

/**
 * The hash of an input of one chunk or less (0-1024 bytes) when at most 32 output bytes are
 * wanted: the commonest small call, with nothing else on its path. Blocks are read in place when
 * the input is 4-byte aligned, only the 8 root words needed are computed, and they are copied out
 * as bytes in one call. At 64 B this is 1.7x the general path (Node, JS backend).
 */
export function singleChunkDigest(input: Uint8Array, key: Uint32Array, flags: number, dkLen: number): Uint8Array {
  const len = input.length;
  // One block or less: read as bytes, so that a fresh short array is never viewed (64 B in a
  // new array each call: 672 ns with the word view, see oneBlockDigest; reused: the same).
  if (len <= BLOCK_LEN) return oneBlockDigest(input, len, key, flags, dkLen);
  if (len >= WASM_MIN_SINGLE) {
    const k = wasmKernels();
    if (k) return k.singleChunk(input, key, flags, dkLen);
  }
  // More than one block from here: the last holds 1-64 bytes and gets CHUNK_END | ROOT.
  const full = (len - 1) >>> 6;
  const lastLen = len - full * BLOCK_LEN;
  const aligned = LITTLE_ENDIAN && (input.byteOffset & 3) === 0;
  const words = aligned ? new Uint32Array(input.buffer, input.byteOffset, len >>> 2) : undefined;
  let src = key;
  for (let b = 0; b < full; b++) {
    const f = flags | (b === 0 ? CHUNK_START : 0);
    if (words) {
      compress(src, 0, words, b * 16, 0, 0, BLOCK_LEN, f, cv, 0, 8);
    } else {
      block8.set(input.subarray(b * BLOCK_LEN, (b + 1) * BLOCK_LEN));
      if (!LITTLE_ENDIAN) swapWords(block8, BLOCK_LEN);
      compress(src, 0, block, 0, 0, 0, BLOCK_LEN, f, cv, 0, 8);
    }
    src = cv;
  }
  const lastFlags = flags | CHUNK_END | ROOT;
  if (words && lastLen === BLOCK_LEN) {
    compress(src, 0, words, full * 16, 0, 0, BLOCK_LEN, lastFlags, root, 0, 8);
  } else {
    block8.fill(0);
    block8.set(input.subarray(full * BLOCK_LEN));
    if (!LITTLE_ENDIAN) swapWords(block8, BLOCK_LEN);
    compress(src, 0, block, 0, 0, 0, lastLen, lastFlags, root, 0, 8);
  }
  if (LITTLE_ENDIAN) return root8.slice(0, dkLen);
  const out = new Uint8Array(dkLen);
  wordsToBytes(root, 0, out, 0, dkLen);
  return out;
}

/**
 * singleChunkDigest of the first `len` (0-64) bytes of `src`, read byte by byte. Typed arrays of
 * up to 64 bytes live inside V8's heap until something asks for their ArrayBuffer (subarray()
 * and word views do), and moving one out costs 0.5-1 us: more than hashing it.
 */
export function oneBlockDigest(src: Uint8Array, len: number, key: Uint32Array, flags: number, dkLen: number): Uint8Array {
  // Little-endian words built from bytes (byte stores into the word array stall the word loads).
  const whole = len >>> 2;
  for (let j = 0; j < whole; j++) {
    const i = 4 * j;
    block[j] = src[i] | (src[i + 1] << 8) | (src[i + 2] << 16) | (src[i + 3] << 24);
  }
  let tail = 0;
  for (let i = len - 1; i >= 4 * whole; i--) tail = (tail << 8) | src[i];
  for (let j = whole; j < 16; j++) block[j] = j === whole ? tail : 0;
  compress(key, 0, block, 0, 0, 0, len, flags | CHUNK_START | CHUNK_END | ROOT, root, 0, 8);
  if (LITTLE_ENDIAN) return root8.slice(0, dkLen);
  const out = new Uint8Array(dkLen);
  wordsToBytes(root, 0, out, 0, dkLen);
  return out;
}
