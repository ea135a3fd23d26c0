/**
 * Subtree hashing for parallel and incremental tree builders: the same semantics as the Rust
 * crate's `blake3::hazmat`. Mistakes here give garbage hashes, not errors, wherever the functions
 * cannot tell: check the root against `blake3()` of the same input.
 *
 * @example
 * ```ts
 * import { blake3 } from '@blake3-web/core';
 * import { hashSubtree, mergeSubtreesRoot, leftSubtreeLen } from '@blake3-web/core/hazmat';
 * const input = new Uint8Array(5000);
 * const split = leftSubtreeLen(input.length); // 4096
 * const left = hashSubtree(input.subarray(0, split), 0);
 * const right = hashSubtree(input.subarray(split), split);
 * mergeSubtreesRoot(left, right); // equals blake3(input)
 * ```
 * @module
 */
import { abytes, auint } from './_assert.js';
import { toBytes, wordsFromBytes, wordsToBytes, type Input } from './_bytes.js';
import { BLOCK_LEN, CHUNK_LEN, OUT_LEN, PARENT } from './_constants.js';
import { HasherState } from './_hasher-state.js';
import { resolveMode, type Blake3Opts, type Mode } from './_options.js';
import { Output } from './_output.js';
import { parentChainingValues } from './hash-many.js';

/** Options of functions that return a 32-byte chaining value: the mode only. */
export type SubtreeOpts = Omit<Blake3Opts, 'dkLen'>;

const CHUNK = BigInt(CHUNK_LEN);

function subtreeMode(opts: unknown, fn: string): Mode {
  if (typeof opts === 'object' && opts !== null && (opts as Blake3Opts).dkLen !== undefined) {
    throw new TypeError(`${fn} returns a 32-byte chaining value: opts.dkLen is not accepted`);
  }
  return resolveMode(opts);
}

function trailingZeros(n: bigint): bigint {
  let z = 0n;
  while ((n & 1n) === 0n) (n >>= 1n), z++;
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
  const len = auint(inputLen, 'inputLen');
  if (len <= CHUNK) throw new RangeError(`inputLen must be more than ${CHUNK_LEN} bytes (one chunk cannot be split), got ${inputLen}`);
  const fullChunks = (len - 1n) / CHUNK;
  let p = 1n;
  while (p * 2n <= fullChunks) p *= 2n;
  return sameType(inputLen, p * CHUNK);
}

/**
 * The 32-byte non-root chaining value of the subtree of `input` starting at byte `inputOffset`
 * of the whole input. `inputOffset` is a multiple of 1024 and `input` at most
 * `maxSubtreeLen(inputOffset)` bytes; the chaining value of an entire input is never a hash.
 */
export function hashSubtree(input: Input, inputOffset: number | bigint, opts?: SubtreeOpts): Uint8Array {
  const bytes = toBytes(input, 'input');
  const offset = auint(inputOffset, 'inputOffset');
  const mode = subtreeMode(opts, 'hashSubtree');
  if (bytes.length === 0) throw new RangeError('input must not be empty: empty subtrees are never valid');
  const max = maxSubtreeLen(offset);
  if (max !== undefined && BigInt(bytes.length) > max) {
    throw new RangeError(`input must be at most ${max} bytes for a subtree starting at ${offset}, got ${bytes.length}`);
  }
  const counter = offset / CHUNK;
  if (counter > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`inputOffset is too large, got ${offset}`);
  const state = (scratchState ??= new HasherState()).init(mode.key, mode.flags, Number(counter));
  return cvBytes(state.finalizeWith(bytes, scratchOutput));
}

// Scratch reused by every call (none re-enters, none is asynchronous): a fresh Output per call
// cost more than the compression it describes (Bao verification: 11% of the time in Output's
// constructor, whose byte view of its block moves the block out of V8's heap).
let scratchState: HasherState | undefined;
const scratchOutput = new Output();
const scratchWords = new Uint32Array(8);

function cvBytes(output: Output): Uint8Array {
  output.chainingValue(scratchWords, 0);
  const out = new Uint8Array(OUT_LEN);
  wordsToBytes(scratchWords, 0, out, 0, OUT_LEN);
  return out;
}

function parentOutput(left: unknown, right: unknown, mode: Mode): Output {
  const l = abytes(left, 'left', OUT_LEN);
  const r = abytes(right, 'right', OUT_LEN);
  const out = scratchOutput;
  out.cv.set(mode.key);
  wordsFromBytes(l, out.block.subarray(0, 8));
  wordsFromBytes(r, out.block.subarray(8, 16));
  out.counter = 0;
  out.blockLen = BLOCK_LEN;
  out.flags = mode.flags | PARENT;
  return out;
}

/** The chaining value of the parent of two subtrees that is not the root. */
export function mergeSubtreesNonRoot(left: Uint8Array, right: Uint8Array, opts?: SubtreeOpts): Uint8Array {
  return cvBytes(parentOutput(left, right, subtreeMode(opts, 'mergeSubtreesNonRoot')));
}

/** The hash (`opts.dkLen` bytes, default 32) of a whole input from its two top subtrees. */
export function mergeSubtreesRoot(left: Uint8Array, right: Uint8Array, opts?: Blake3Opts): Uint8Array {
  const mode = resolveMode(opts);
  const out = new Uint8Array(mode.dkLen);
  parentOutput(left, right, mode).rootBytes(out);
  return out;
}

/**
 * The non-root chaining values of many parents at once: `nodes` holds parent nodes of 64 bytes
 * each (left chaining value, then right), one after another; the result holds their chaining
 * values, 32 bytes each, in the same order. Equal to `mergeSubtreesNonRoot` on each node, and
 * with the wasm-simd backend 8 parents are compressed per SIMD step (for Bao-style trees, where
 * every parent of a subtree is checked).
 */
export function mergeManySubtreesNonRoot(nodes: Uint8Array, opts?: SubtreeOpts): Uint8Array {
  const bytes = abytes(nodes, 'nodes');
  if (bytes.length % BLOCK_LEN !== 0) throw new RangeError(`nodes must be a whole number of ${BLOCK_LEN}-byte parent nodes, got ${bytes.length} bytes`);
  return parentChainingValues(bytes, subtreeMode(opts, 'mergeManySubtreesNonRoot'));
}
