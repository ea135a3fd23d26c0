/**
 * The arguments of `hashSubtrees`, checked: the one home of its rules, read by the core's kernels
 * (hazmat.ts) and by `@blake3-web/native`, which computes the same values in Rust and must refuse
 * exactly what the core refuses, with the same messages. Reached by other packages through the
 * `@blake3-web/core/_subtree-args` subpath, which is internal: not documented, not covered by semver.
 * @module
 */
import { auint } from './_assert.js';
import { toBytes } from './_bytes.js';
import { CHUNK_LEN } from './_constants.js';
import { maxSubtreeLen } from './subtree-len.js';

const MAX_COUNTER = BigInt(Number.MAX_SAFE_INTEGER);
const CHUNK = BigInt(CHUNK_LEN);

// Tuples, not objects: property names are bytes every app that bundles the hazmat entry carries.

/** Where a subtree starts, checked: its first chunk's index and the most bytes it may hold. */
export function subtreeStart(inputOffset: unknown): [firstChunk: number, maxLen: number] {
  const offset = auint(inputOffset, 'inputOffset');
  const max = maxSubtreeLen(offset);
  const chunk = offset / CHUNK;
  if (chunk > MAX_COUNTER) throw new RangeError(`inputOffset is too large, got ${offset}`);
  // Above 2^53 the limit is beyond any input's length, so a rounded one does as well.
  return [Number(chunk), max === undefined ? Infinity : Number(max)];
}

/** `hashSubtrees`' arguments, checked in the core's order; `modeOf` reads and checks `opts`. */
export function subtreesArgs<M>(
  input: unknown,
  inputOffset: unknown,
  subtreeLen: number,
  opts: unknown,
  modeOf: (opts: unknown) => M,
): [bytes: Uint8Array, firstChunk: number, subtreeChunks: number, mode: M] {
  const bytes = toBytes(input, 'input');
  const [firstChunk] = subtreeStart(inputOffset);
  const mode = modeOf(opts);
  const chunks = Number.isSafeInteger(subtreeLen) && subtreeLen > 0 ? subtreeLen / CHUNK_LEN : 0;
  if (!Number.isInteger(chunks) || chunks < 1 || (chunks & (chunks - 1)) !== 0 || chunks > 2 ** 30)
    throw new RangeError(`subtreeLen must be a power of two times ${CHUNK_LEN}, at most 2^40, got ${subtreeLen}`);
  if (firstChunk % chunks !== 0)
    throw new RangeError(`inputOffset must be a multiple of subtreeLen (${subtreeLen}), got ${inputOffset}`);
  if (bytes.length === 0) throw new RangeError('input must not be empty: empty subtrees are never valid');
  return [bytes, firstChunk, chunks, mode];
}
