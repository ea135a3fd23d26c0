/**
 * BLAKE3's power-of-two rules for subtrees (re-exported by `@blake3-web/core/hazmat`): where an
 * input splits into its two top subtrees, and how large a subtree may be where it starts. Every
 * package that cuts an input into subtrees asks these two functions.
 * @module
 */
import { auint } from './_assert.js';
import { CHUNK_LEN } from './_constants.js';

const CHUNK = BigInt(CHUNK_LEN);

function trailingZeros(n: bigint): bigint {
  let z = 0n;
  while ((n & 1n) === 0n) ((n >>= 1n), z++);
  return z;
}

function sameType<T extends number | bigint>(like: T, value: bigint): T {
  return (typeof like === 'bigint' ? value : Number(value)) as T;
}

/**
 * The largest subtree that can start at `inputOffset`: `undefined` (no limit) at 0, otherwise
 * 2^(trailing zero bits of the chunk index) chunks. Returns the type it was given.
 */
export function maxSubtreeLen<T extends number | bigint>(inputOffset: T): T | undefined {
  const offset = auint(inputOffset, 'inputOffset');
  if (offset % CHUNK !== 0n) throw new RangeError(`inputOffset must be a multiple of ${CHUNK_LEN}, got ${inputOffset}`);
  if (offset === 0n) return undefined;
  return sameType(inputOffset, (1n << trailingZeros(offset / CHUNK)) * CHUNK);
}

/**
 * Where an input of `inputLen` bytes splits into its left and right subtrees: the largest power
 * of two chunks that leaves at least one byte on the right. An input of one chunk or less is a
 * single chunk and cannot be split.
 */
export function leftSubtreeLen<T extends number | bigint>(inputLen: T): T {
  if (typeof inputLen === 'number' && Number.isSafeInteger(inputLen) && inputLen > CHUNK_LEN) {
    // Numbers skip the bigint steps: tree builders ask once per parent. Math.log2 may round
    // either way near a power of two, so the power is corrected to the exact one.
    const fullChunks = Math.floor((inputLen - 1) / CHUNK_LEN);
    let p = 2 ** Math.floor(Math.log2(fullChunks));
    if (p > fullChunks) p /= 2;
    else if (p * 2 <= fullChunks) p *= 2;
    return (p * CHUNK_LEN) as T;
  }
  const len = auint(inputLen, 'inputLen');
  if (len <= CHUNK)
    throw new RangeError(`inputLen must be more than ${CHUNK_LEN} bytes (one chunk cannot be split), got ${inputLen}`);
  const fullChunks = (len - 1n) / CHUNK;
  let p = 1n;
  while (p * 2n <= fullChunks) p *= 2n;
  return sameType(inputLen, p * CHUNK);
}
