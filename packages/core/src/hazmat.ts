/**
 * Subtree hashing for parallel and incremental tree builders: the same semantics as the Rust
 * crate's `blake3::hazmat`. Mistakes here give garbage hashes, not errors, wherever the functions
 * cannot tell: check the root against `blake3()` of the same input.
 *
 * Every function takes the mode as options (`{ key }`, `{ context }` or none) or as a `Mode`
 * resolved once, which callers that merge many subtrees should pass: a context is then hashed
 * into its key once, not per call. Subtrees hashed in order, by anyone, become a root through a
 * `ChainingValueStack` (chaining-value-stack.ts), which refuses the pushes that would build
 * another tree.
 *
 * @example
 * ```ts
 * import { blake3 } from '@blake3-web/core';
 * import { hashSubtree, mergeSubtreesRoot, leftSubtreeLen, subtreeHasher } from '@blake3-web/core/hazmat';
 * const input = new Uint8Array(5000);
 * const split = leftSubtreeLen(input.length); // 4096
 * const left = hashSubtree(input.subarray(0, split), 0);
 * const right = subtreeHasher(split).update(input.subarray(split)).finalizeNonRoot();
 * mergeSubtreesRoot(left, right); // equals blake3(input)
 * ```
 * @module
 */
import { abytes } from './_assert.js';
import { LITTLE_ENDIAN, toBytes, wordsFromBytes, wordsToBytes, type Input } from './_bytes.js';
import { BLOCK_LEN, OUT_LEN, PARENT } from './_constants.js';
import { HasherState } from './_hasher-state.js';
import { MAX_CALL_CHUNKS } from './_kernels.js';
import type { Blake3Opts, ResolvedMode } from './_options.js';
import { Output } from './_output.js';
import { chunkKernels } from './backend.js';
import { parentChainingValues } from './hash-many.js';
import { Mode, modeOf } from './mode.js';
import { subtreeStart, subtreesArgs } from './_subtree-args.js';

export { BLOCK_LEN, CHUNK_LEN } from './_constants.js';
export { Mode } from './mode.js';
export { leftSubtreeLen, maxSubtreeLen } from './subtree-len.js';
export {
  ChainingValueStack,
  chainingValueStack,
  cvStackDepth,
  type ChainingValueStackState,
} from './chaining-value-stack.js';

/** Options of functions that return a 32-byte chaining value: the mode only. */
export type SubtreeOpts = Omit<Blake3Opts, 'dkLen'>;

function tooLong(maxLen: number, inputOffset: unknown, len: number): RangeError {
  return new RangeError(`input must be at most ${maxLen} bytes for a subtree starting at ${inputOffset}, got ${len}`);
}

/**
 * The 32-byte non-root chaining value of the subtree of `input` starting at byte `inputOffset`
 * of the whole input. `inputOffset` is a multiple of 1024 and `input` at most
 * `maxSubtreeLen(inputOffset)` bytes; the chaining value of an entire input is never a hash.
 */
export function hashSubtree(input: Input, inputOffset: number | bigint, opts?: SubtreeOpts | Mode): Uint8Array {
  const bytes = toBytes(input, 'input');
  const [counter, maxLen] = subtreeStart(inputOffset);
  const mode = modeOf(opts, 'hashSubtree');
  if (bytes.length === 0) throw new RangeError('input must not be empty: empty subtrees are never valid');
  if (bytes.length > maxLen) throw tooLong(maxLen, inputOffset, bytes.length);
  const state = (scratchState ??= new HasherState()).init(mode.key, mode.flags, counter);
  return cvBytes(state.finalizeWith(bytes, scratchOutput));
}

/**
 * `hashSubtree` for a subtree that arrives in pieces (the Rust crate's `Hasher` with
 * `set_input_offset` and `finalize_non_root`). An update that would take the subtree past
 * `maxSubtreeLen(inputOffset)` bytes throws and leaves the hasher as it was.
 */
export class SubtreeHasher {
  readonly #state: HasherState;
  readonly #inputOffset: number | bigint;
  readonly #maxLen: number;

  constructor(inputOffset: number | bigint, opts?: SubtreeOpts | Mode) {
    const [counter, maxLen] = subtreeStart(inputOffset);
    const mode = modeOf(opts, 'subtreeHasher');
    this.#state = new HasherState().init(mode.key, mode.flags, counter);
    this.#inputOffset = inputOffset;
    this.#maxLen = maxLen;
  }

  /** Bytes of the subtree hashed so far. */
  get length(): number {
    return this.#state.length;
  }

  update(input: Input): this {
    const bytes = toBytes(input, 'input');
    const len = this.#state.length + bytes.length;
    if (len > this.#maxLen) throw tooLong(this.#maxLen, this.#inputOffset, len);
    this.#state.update(bytes);
    return this;
  }

  /** The subtree's 32-byte non-root chaining value; the hasher can take more input afterwards. */
  finalizeNonRoot(): Uint8Array {
    if (this.#state.length === 0) throw new RangeError('the subtree must not be empty: empty subtrees are never valid');
    return cvBytes(this.#state.finalize(scratchOutput));
  }
}

/** A SubtreeHasher for the subtree starting at byte `inputOffset` of the whole input. */
export function subtreeHasher(inputOffset: number | bigint, opts?: SubtreeOpts | Mode): SubtreeHasher {
  return new SubtreeHasher(inputOffset, opts);
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

function parentOutput(left: unknown, right: unknown, mode: ResolvedMode): Output {
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
export function mergeSubtreesNonRoot(left: Uint8Array, right: Uint8Array, opts?: SubtreeOpts | Mode): Uint8Array {
  return cvBytes(parentOutput(left, right, modeOf(opts, 'mergeSubtreesNonRoot')));
}

/** The hash (`opts.dkLen` bytes, default 32) of a whole input from its two top subtrees. */
export function mergeSubtreesRoot(left: Uint8Array, right: Uint8Array, opts?: Blake3Opts | Mode): Uint8Array {
  const mode = modeOf(opts);
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
export function mergeManySubtreesNonRoot(nodes: Uint8Array, opts?: SubtreeOpts | Mode): Uint8Array {
  const bytes = abytes(nodes, 'nodes');
  if (bytes.length % BLOCK_LEN !== 0)
    throw new RangeError(`nodes must be a whole number of ${BLOCK_LEN}-byte parent nodes, got ${bytes.length} bytes`);
  return parentChainingValues(bytes, modeOf(opts, 'mergeManySubtreesNonRoot'));
}

/**
 * The non-root chaining values of the consecutive subtrees of `subtreeLen` bytes that make up
 * `input` (the last may be shorter), the first starting at byte `inputOffset` of the whole input:
 * 32 bytes each, in order. Equal to `hashSubtree` on each, and with the wasm-simd backend every
 * chunk of the whole subtrees goes through the SIMD kernel in calls of up to 64 chunks, however
 * small the subtrees (for trees that check every leaf, such as Bao's). `subtreeLen` is a power
 * of two times 1024, and `inputOffset` a multiple of it.
 */
export function hashSubtrees(
  input: Input,
  inputOffset: number | bigint,
  subtreeLen: number,
  opts?: SubtreeOpts | Mode,
): Uint8Array {
  const [bytes, counter, chunks, mode] = subtreesArgs(input, inputOffset, subtreeLen, opts, (o) =>
    modeOf(o, 'hashSubtrees'),
  );
  const count = Math.ceil(bytes.length / subtreeLen);
  const out = new Uint8Array(OUT_LEN * count);
  // Whole subtrees of up to one kernel call each go through the kernel, many per call.
  const whole = chunks <= MAX_CALL_CHUNKS ? Math.floor(bytes.length / subtreeLen) : 0;
  const merges = Math.log2(chunks);
  const perCall = MAX_CALL_CHUNKS / chunks;
  const words = (scratchCvs ??= new Uint32Array(8 * MAX_CALL_CHUNKS));
  const words8 = LITTLE_ENDIAN ? (scratchCvBytes ??= new Uint8Array(words.buffer)) : undefined;
  for (let done = 0; done < whole;) {
    const n = Math.min(perCall, whole - done);
    const c = chunks * n;
    chunkKernels(c).chunks(
      bytes,
      done * subtreeLen,
      c,
      counter + done * chunks,
      mode.key,
      mode.flags,
      merges,
      words,
      0,
    );
    if (words8) out.set(n === MAX_CALL_CHUNKS ? words8 : words8.subarray(0, OUT_LEN * n), OUT_LEN * done);
    else wordsToBytes(words, 0, out, OUT_LEN * done, OUT_LEN * n);
    done += n;
  }
  // Larger subtrees and a shorter last one: one subtree hash each.
  const state = (scratchState ??= new HasherState());
  for (let i = whole; i < count; i++) {
    const pos = i * subtreeLen;
    state.init(mode.key, mode.flags, counter + i * chunks);
    state.finalizeWith(bytes.subarray(pos, pos + subtreeLen), scratchOutput);
    scratchOutput.chainingValue(scratchWords, 0);
    wordsToBytes(scratchWords, 0, out, OUT_LEN * i, OUT_LEN);
  }
  return out;
}

let scratchCvs: Uint32Array | undefined;
let scratchCvBytes: Uint8Array | undefined;
