/**
 * The chaining-value stack of BLAKE3's incremental hasher, over subtrees instead of chunks
 * (re-exported by `@blake3-web/core/hazmat`): what a tree builder needs once its subtrees are
 * hashed, whoever hashed them (workers, an upload's reads, a server). Subtrees are pushed in input
 * order, each a power of two chunks starting where the stack ends at a multiple of its own length;
 * the last subtree may be shorter. Pushes that would build another tree are refused: this is the
 * step that otherwise "gives garbage hashes, not errors".
 *
 * The rule is the reference implementation's `add_chunk_chaining_value`, with a subtree in the
 * role of a chunk: before a push, the stack merges down to one chaining value per set bit of the
 * chunk count so far (`cvStackDepth`). The merge is lazy: the subtree just pushed stays apart
 * until another one follows it, because if it is the last one, its parent is the root and must be
 * compressed with the ROOT flag. Merging it eagerly builds the wrong tree whenever the chunk count
 * is a power of two: the stack would hold a single value, whose root output is lost.
 *
 * @example
 * ```ts
 * import { blake3 } from '@blake3-web/core';
 * import { ChainingValueStack, hashSubtree } from '@blake3-web/core/hazmat';
 * const input = new Uint8Array(5000);
 * const stack = new ChainingValueStack();
 * stack.push(hashSubtree(input.subarray(0, 4096), 0), 0, 4096);
 * stack.push(hashSubtree(input.subarray(4096), 4096), 4096, 904);
 * stack.digest(); // equals blake3(input)
 * ```
 * @module
 */
import { abytes, anOutputLen, auint, describe } from './_assert.js';
import { wordsFromBytes, wordsToBytes } from './_bytes.js';
import { compress } from './_compress.js';
import { BLOCK_LEN, CHUNK_LEN, MAX_DEPTH, OUT_LEN, PARENT } from './_constants.js';
import { cvStackDepthOf } from './_cv-stack-depth.js';
import type { Blake3Opts, ResolvedMode } from './_options.js';
import { Output } from './_output.js';
import { OutputReader } from './_output-reader.js';
import { Mode, modeOf } from './mode.js';
import { maxSubtreeLen } from './subtree-len.js';

/**
 * A stack at rest, at a chunk boundary with more input to come, as plain data: `offset` the bytes
 * covered (a multiple of 1024), `cvs` their chaining values, 32 bytes each, largest subtree first:
 * `cvStackDepth(offset)` of them (for a stack that starts at `inputOffset`, of `offset - inputOffset`).
 */
export type ChainingValueStackState = { readonly offset: number; readonly cvs: Uint8Array };

/** An offset or length of the stack: a safe integer, given as a number or a bigint. */
function aSafeUint(value: unknown, name: string): number {
  const n = auint(value, name);
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`${name} must be at most 2^53 - 1, got ${value}`);
  return Number(n);
}

/** An offset that is a whole number of chunks. */
function aChunkOffset(value: unknown, name: string): number {
  const n = aSafeUint(value, name);
  if (n % CHUNK_LEN !== 0) throw new RangeError(`${name} must be a multiple of ${CHUNK_LEN}, got ${value}`);
  return n;
}

/**
 * How many chaining values a stack covering the first `inputOffset` bytes holds at rest (its
 * `state()`): one per set bit of the chunk count, `inputOffset / 1024`. `inputOffset` is a
 * multiple of 1024.
 */
export function cvStackDepth(inputOffset: number | bigint): number {
  // Numbers skip the bigint checks: tree builders ask once per parent.
  if (
    typeof inputOffset === 'number' &&
    Number.isSafeInteger(inputOffset) &&
    inputOffset >= 0 &&
    inputOffset % CHUNK_LEN === 0
  )
    return cvStackDepthOf(inputOffset / CHUNK_LEN);
  const offset = auint(inputOffset, 'inputOffset');
  if (offset % BigInt(CHUNK_LEN) !== 0n)
    throw new RangeError(`inputOffset must be a multiple of ${CHUNK_LEN}, got ${inputOffset}`);
  const chunks = offset / BigInt(CHUNK_LEN);
  return cvStackDepthOf(Number(chunks & 0x1f_ffff_ffff_ffffn)) + cvStackDepthOf(Number(chunks >> 53n));
}

/** Whether `len` bytes are a power of two chunks. */
function isWholeSubtree(len: number): boolean {
  const chunks = len / CHUNK_LEN;
  return Number.isInteger(chunks) && chunks >= 1 && 2 ** Math.round(Math.log2(chunks)) === chunks;
}

/**
 * The stack of chaining values of a tree's completed subtrees. It starts at byte 0 of the whole
 * input (the root is then `digest`) or at `inputOffset`, where it covers one subtree of a larger
 * input (whose chaining value is then `finalizeNonRoot`). Keep at most 2^53 - 1 bytes.
 */
export class ChainingValueStack {
  #mode: ResolvedMode;
  /** Where the stack starts, in bytes, and the most bytes it may cover (Infinity from 0). */
  readonly #start: number;
  readonly #maxLen: number;
  /** Where the stack ends, in bytes: where the next subtree starts. */
  #end: number;
  /** A subtree shorter than a power of two chunks was pushed: it was the last (its start and length). */
  #last: { offset: number; len: number } | undefined;
  /** Chaining values as words, 8 each, largest subtree first; `#len` of them. */
  readonly #words = new Uint32Array(MAX_DEPTH * 8);
  #len = 0;

  /**
   * An empty stack in the mode of `opts` (its `dkLen` is `digest`'s default length) whose first
   * subtree starts at `inputOffset` (default 0: the stack covers a whole input).
   */
  constructor(opts?: Blake3Opts | Mode, inputOffset: number | bigint = 0) {
    this.#mode = modeOf(opts);
    this.#start = aChunkOffset(inputOffset, 'inputOffset');
    this.#maxLen = this.#start === 0 ? Infinity : maxSubtreeLen(this.#start)!;
    this.#end = this.#start;
  }

  /**
   * A stack that goes on from `state` (a stack's `state()`, e.g. kept in a checkpoint), in the
   * mode it was made in: the chaining values are taken as they are, only their count is checked.
   */
  static fromState(
    state: ChainingValueStackState,
    opts?: Blake3Opts | Mode,
    inputOffset: number | bigint = 0,
  ): ChainingValueStack {
    const stack = new ChainingValueStack(opts, inputOffset);
    if (typeof state !== 'object' || state === null)
      throw new TypeError(`state must be a chaining-value stack's state, got ${describe(state)}`);
    const offset = aChunkOffset(state.offset, 'state.offset');
    if (offset < stack.#start || offset - stack.#start > stack.#maxLen)
      throw new RangeError(
        `state.offset must be from ${stack.#start} to ${stack.#start + stack.#maxLen} for a stack starting at ${stack.#start}, got ${offset}`,
      );
    const depth = cvStackDepthOf((offset - stack.#start) / CHUNK_LEN);
    const cvs = abytes(state.cvs, 'state.cvs', depth * OUT_LEN);
    for (let i = 0; i < depth; i++) wordsFromBytes(cvs.subarray(i * OUT_LEN), stack.#words.subarray(i * 8, i * 8 + 8));
    stack.#len = depth;
    stack.#end = offset;
    return stack;
  }

  /** Where the stack ends: the byte offset at which the next subtree starts. */
  get offset(): number {
    return this.#end;
  }

  /**
   * Adds the chaining value `cv` of the subtree of `inputLen` bytes at byte `inputOffset` of the
   * whole input. `inputOffset` is where the stack ends (`offset`); `inputLen` a power of two
   * chunks, no more than `maxSubtreeLen(inputOffset)`, or, for the last subtree, any length up to
   * that (after which nothing more is pushed). Anything else is a RangeError, and leaves the
   * stack as it was.
   */
  push(cv: Uint8Array, inputOffset: number | bigint, inputLen: number | bigint): this {
    const bytes = abytes(cv, 'cv', OUT_LEN);
    const offset = aSafeUint(inputOffset, 'inputOffset');
    const len = aSafeUint(inputLen, 'inputLen');
    if (this.#last !== undefined)
      throw new RangeError(
        `the subtree of ${this.#last.len} bytes at ${this.#last.offset} is not a power of two chunks, so it was the last: nothing can follow it`,
      );
    if (offset !== this.#end)
      throw new RangeError(`inputOffset must be ${this.#end}, where the stack ends, got ${inputOffset}`);
    if (len === 0) throw new RangeError('inputLen must not be 0: empty subtrees are never valid');
    const max = Math.min(offset === 0 ? Infinity : maxSubtreeLen(offset)!, this.#start + this.#maxLen - offset);
    if (len > max) throw new RangeError(`inputLen must be at most ${max} for a subtree at ${offset}, got ${inputLen}`);
    if (offset + len > Number.MAX_SAFE_INTEGER)
      throw new RangeError(`the stack covers at most 2^53 - 1 bytes: inputLen ${inputLen} at ${offset} goes past it`);
    if (!isWholeSubtree(len)) this.#last = { offset, len };
    this.#len = this.#merge(this.#words, this.#len, (offset - this.#start) / CHUNK_LEN);
    wordsFromBytes(bytes, this.#words.subarray(this.#len * 8, this.#len * 8 + 8));
    this.#len++;
    this.#end = offset + len;
    return this;
  }

  /**
   * The root hash of the input the stack covers (`dkLen` bytes, by default the mode's). The stack
   * starts at 0 and holds at least two subtrees: a single subtree is the whole input, which
   * `blake3()` hashes. Does not change the stack.
   */
  digest(dkLen: number = this.#mode.dkLen): Uint8Array {
    const out = new Uint8Array(anOutputLen(dkLen, 'dkLen'));
    this.#root().rootBytes(out);
    return out;
  }

  /** `digest` into `out`: its first `out.length` bytes. */
  digestInto(out: Uint8Array): void {
    this.#root().rootBytes(abytes(out, 'out'));
  }

  /** The root's extended output from position 0 (seek with `position`), as `Hasher.reader()` gives it. */
  reader(): OutputReader {
    return new OutputReader(this.#root());
  }

  /**
   * The 32-byte non-root chaining value of the subtree the stack covers, from its `inputOffset`
   * to `offset`: for a stack that is one subtree of a larger input. Does not change the stack.
   */
  finalizeNonRoot(): Uint8Array {
    if (this.#len === 0) throw new RangeError('the stack is empty: empty subtrees are never valid');
    const out = new Uint8Array(OUT_LEN);
    if (this.#len === 1) wordsToBytes(this.#words, 0, out, 0, OUT_LEN);
    else {
      this.#fold(scratchOutput).chainingValue(scratchWords, 0);
      wordsToBytes(scratchWords, 0, out, 0, OUT_LEN);
    }
    return out;
  }

  /**
   * The stack at rest at its offset, as plain data (`ChainingValueStackState`): its chaining
   * values merged as far as more input allows. The stack must end at a chunk boundary, with no
   * last subtree pushed. Does not change the stack.
   */
  state(): ChainingValueStackState {
    if (this.#last !== undefined)
      throw new RangeError(
        `the stack ends with its last subtree (${this.#last.len} bytes at ${this.#last.offset}): no input can follow it`,
      );
    const words = scratchStack;
    words.set(this.#words.subarray(0, this.#len * 8));
    const depth = this.#merge(words, this.#len, (this.#end - this.#start) / CHUNK_LEN);
    const cvs = new Uint8Array(depth * OUT_LEN);
    wordsToBytes(words, 0, cvs, 0, depth * OUT_LEN);
    return { offset: this.#end, cvs };
  }

  /** An independent copy of the stack. */
  clone(): ChainingValueStack {
    const copy = new ChainingValueStack(undefined, this.#start);
    copy.#mode = this.#mode;
    copy.#end = this.#end;
    copy.#last = this.#last;
    copy.#words.set(this.#words.subarray(0, this.#len * 8));
    copy.#len = this.#len;
    return copy;
  }

  /**
   * Merges the top of `words` (`len` values) down to the depth of `chunks` chunks, the parents
   * compressed in place; returns the new length.
   */
  #merge(words: Uint32Array, len: number, chunks: number): number {
    const { key, flags } = this.#mode;
    for (const target = cvStackDepthOf(chunks); len > target; len--) {
      const top = (len - 2) * 8;
      compress(key, 0, words, top, 0, 0, BLOCK_LEN, flags | PARENT, words, top, 8);
    }
    return len;
  }

  /** The final node of a whole input: the root, uncompressed. */
  #root(): Output {
    if (this.#start !== 0)
      throw new RangeError(
        `the stack starts at ${this.#start}, so it is a subtree and has no root: use finalizeNonRoot`,
      );
    if (this.#len < 2)
      throw new RangeError(
        `the stack needs at least two subtrees for a root, got ${this.#len}: a single subtree is the whole input, hash it with blake3()`,
      );
    return this.#fold(scratchOutput);
  }

  /** The top node of everything on the stack: each value the left sibling of everything to its right. */
  #fold(out: Output): Output {
    const { key, flags } = this.#mode;
    const words = this.#words;
    const len = this.#len;
    out.setParent(words, (len - 2) * 8, (len - 1) * 8, key, flags | PARENT);
    for (let i = len - 3; i >= 0; i--) {
      out.chainingValue(out.block, 8);
      out.block.set(words.subarray(i * 8, i * 8 + 8), 0);
      out.cv.set(key);
      out.counter = 0;
      out.blockLen = BLOCK_LEN;
      out.flags = flags | PARENT;
    }
    return out;
  }
}

/** A ChainingValueStack (see its constructor). */
export function chainingValueStack(opts?: Blake3Opts | Mode, inputOffset: number | bigint = 0): ChainingValueStack {
  return new ChainingValueStack(opts, inputOffset);
}

// Scratch reused by every call: none re-enters, none is asynchronous.
const scratchOutput = new Output();
const scratchWords = new Uint32Array(8);
const scratchStack = new Uint32Array(MAX_DEPTH * 8);
