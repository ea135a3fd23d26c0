import { compress } from './_compress.js';
import { BLOCK_LEN, CHUNK_LEN, MAX_DEPTH, PARENT } from './_constants.js';
import { cvStackDepthOf } from './_cv-stack-depth.js';
import { MAX_CALL_CHUNKS } from './_kernels.js';
import type { Output } from './_output.js';
import { chunkKernels, singleChunkKernels } from './backend.js';

/**
 * Input is buffered until a whole group of this many chunks is there, so that any sequence of
 * update sizes (even 1000 updates of 100 bytes) reaches the SIMD kernel in aligned groups.
 * 4 chunks paid one scalar parent merge in JS per 4 chunks (1 MiB in 100-byte updates: 755 vs
 * 805 MB/s); 64 chunks gained nothing (820) for 4x the memory per hasher.
 */
const GROUP_CHUNKS = 16;
const GROUP_LEN = GROUP_CHUNKS * CHUNK_LEN;

/** The largest typed array V8 allocates inside its heap (its default typed_array_max_size_in_heap). */
const ON_HEAP_MAX = 64;
// Shared until init() and the first append, so a fresh hasher allocates neither (create, update
// 64 B, digest: Node 497 -> 401 ns, Chromium 517 -> 419, WebKitGTK 709 -> 622, Firefox 565 -> 513).
const NO_KEY = new Uint32Array(8);
const NO_BYTES = new Uint8Array(0);
/** The stack copy `finalize` works on, so that finalizing leaves the state untouched. */
let finalStack: Uint32Array | undefined;

/**
 * The incremental BLAKE3 state: the CV stack of the reference implementation (`cv_stack`) plus
 * the input not yet hashed, kept as bytes. Whole chunks are hashed in groups, as power-of-two
 * subtrees at positions that are multiples of their size, each giving one chaining value. The
 * reference keeps the last chunk back because it may be the root; here the stack is merged
 * lazily instead (before a push, never after), so the last subtrees stay apart until more input
 * shows they are not the root's children, and a first subtree that spans everything so far is
 * pushed as its two halves. Input short of a whole group stays as bytes until the group is
 * complete or the hash is finalized.
 */
export class HasherState {
  /**
   * Key words: the IV, the key, or the derive_key context key. The mode's own array, never
   * written here (a fresh hasher allocates no copy of it).
   */
  key: Uint32Array = NO_KEY;
  flags = 0;
  /** Index of the first chunk not yet hashed; can exceed 2^32 (it is kept exact up to 2^53). */
  chunkCounter = 0;
  /** Where the subtree starts, in chunks (non-zero only through the hazmat API). */
  initialChunkCounter = 0;
  /** Allocated on the first push: most hashers of short messages never need it. */
  #cvStack: Uint32Array | undefined;
  cvStackLen = 0;
  /**
   * Input from chunk `chunkCounter` on, not hashed yet: less than GROUP_LEN bytes (a whole group is
   * hashed as soon as it is complete). `chunkCounter - initialChunkCounter` stays a multiple of GROUP_CHUNKS.
   */
  #buf = NO_BYTES;
  #bufLen = 0;

  init(key: Uint32Array, flags: number, initialChunkCounter = 0): this {
    this.key = key;
    this.flags = flags;
    this.initialChunkCounter = initialChunkCounter;
    return this.reset();
  }

  reset(): this {
    this.chunkCounter = this.initialChunkCounter;
    this.cvStackLen = 0;
    this.#bufLen = 0;
    return this;
  }

  copyFrom(s: HasherState): this {
    this.key = s.key;
    this.flags = s.flags;
    this.chunkCounter = s.chunkCounter;
    this.initialChunkCounter = s.initialChunkCounter;
    if (s.cvStackLen > 0) this.cvStack.set(s.cvStack.subarray(0, s.cvStackLen * 8));
    this.cvStackLen = s.cvStackLen;
    this.#bufLen = 0;
    this.#append(s.#buf, 0, s.#bufLen);
    return this;
  }

  /** Chaining values of completed subtrees, largest first (the reference's `cv_stack`). */
  get cvStack(): Uint32Array {
    // Allocating typed arrays is slow in Chromium (~1 us for this one): only when needed.
    return (this.#cvStack ??= new Uint32Array(MAX_DEPTH * 8));
  }

  /**
   * The digest through the single-chunk path when the input so far is the whole message and one
   * chunk or less (`dkLen` at most 32), else undefined.
   */
  singleChunkDigest(dkLen: number): Uint8Array | undefined {
    if (this.chunkCounter !== 0 || this.#bufLen > CHUNK_LEN) return undefined;
    return singleChunkKernels(this.#bufLen).singleChunk(this.#buf, this.#bufLen, this.key, this.flags, dkLen);
  }

  /** Bytes hashed since the start (of the subtree, for hazmat states). */
  get length(): number {
    return (this.chunkCounter - this.initialChunkCounter) * CHUNK_LEN + this.#bufLen;
  }

  update(input: Uint8Array): void {
    const len = input.length;
    let pos = 0;
    if (this.#bufLen > 0) {
      pos = Math.min(GROUP_LEN - this.#bufLen, len);
      this.#append(input, 0, pos);
      if (this.#bufLen < GROUP_LEN) return;
      // A whole group: hashed now, whether or not more input follows (merges are lazy).
      this.cvStackLen = this.#pushChunks(this.#buf, 0, GROUP_CHUNKS, this.cvStack, this.cvStackLen);
      this.#bufLen = 0;
    }
    const n = Math.floor((len - pos) / GROUP_LEN) * GROUP_CHUNKS;
    if (n > 0) {
      // Whole groups straight from the input (64 KiB updates: 1622 -> 2016 MB/s once they no
      // longer kept the last group back in the buffer).
      this.cvStackLen = this.#pushChunks(input, pos, n, this.cvStack, this.cvStackLen);
      pos += n * CHUNK_LEN;
    }
    this.#append(input, pos, len - pos);
  }

  #append(src: Uint8Array, pos: number, n: number): void {
    if (n === 0) return;
    const need = this.#bufLen + n;
    if (need > this.#buf.length) {
      // Grown in steps up to GROUP_LEN: a hasher of short messages keeps a short buffer. Starting
      // at ON_HEAP_MAX keeps it inside V8's heap, where typed arrays are cheap to allocate (an
      // update of 64 bytes into a fresh hasher: 1440 ns with a first buffer of 256 bytes).
      let cap = Math.max(this.#buf.length, ON_HEAP_MAX);
      while (cap < need) cap *= 4;
      const grown = new Uint8Array(Math.min(cap, GROUP_LEN));
      if (this.#bufLen > 0) grown.set(this.#buf.subarray(0, this.#bufLen));
      this.#buf = grown;
    }
    const buf = this.#buf;
    // Tiny updates: a byte loop beats subarray() + set() (8-byte updates: 108 -> 178 MB/s; at 64 bytes set() wins).
    if (n <= 16) for (let i = 0, o = this.#bufLen; i < n; i++) buf[o + i] = src[pos + i];
    // The whole of a short array is copied without subarray(), which would move it out of V8's heap.
    else buf.set(n === src.length ? src : src.subarray(pos, pos + n), this.#bufLen);
    this.#bufLen = need;
  }

  /**
   * Hashes `n` whole chunks of `src` from `pos` as the largest aligned power-of-two subtrees and
   * pushes their chaining values on `stack` (from `stackLen`), merging completed subtrees before
   * each push. Returns the new stack length; advances `chunkCounter`.
   */
  #pushChunks(src: Uint8Array, pos: number, n: number, stack: Uint32Array, stackLen: number): number {
    const key = this.key;
    const flags = this.flags;
    while (n > 0) {
      const t = this.chunkCounter - this.initialChunkCounter;
      let size = MAX_CALL_CHUNKS;
      while (size > n || t % size !== 0) size /= 2;
      // `count` subtrees of `size` chunks each; one call either way.
      let count = 1;
      let merges = Math.log2(size);
      if (size < 4 && n < 4) {
        // The last 1-3 chunks: their chaining values in one call, merged here.
        ((size = 1), (count = n), (merges = 0));
      } else if (t === 0 && size === n) {
        // Everything so far is one power-of-two subtree: if no input follows, its top node is
        // the root, which must stay uncompressed, so stop one level below it.
        ((size /= 2), (count = 2), (merges -= 1));
      }
      const chunks = size * count;
      const at = stackLen;
      chunkKernels(chunks).chunks(src, pos, chunks, this.chunkCounter, key, flags, merges, stack, at * 8);
      for (let i = 0; i < count; i++) {
        stackLen = this.#mergeCompleted(stack, stackLen);
        // Merges may have lowered the top below where the kernel wrote this chaining value.
        if (at + i !== stackLen) stack.copyWithin(stackLen * 8, (at + i) * 8, (at + i + 1) * 8);
        stackLen++;
        this.chunkCounter += size;
      }
      pos += chunks * CHUNK_LEN;
      n -= chunks;
    }
    return stackLen;
  }

  /**
   * Merges the stack down to the depth of the chunk count so far (`cvStackDepthOf`), before a
   * push: merging lazily keeps the last pushed subtrees apart, so no push can compress the root.
   */
  #mergeCompleted(stack: Uint32Array, stackLen: number): number {
    const target = cvStackDepthOf(this.chunkCounter - this.initialChunkCounter);
    for (; stackLen > target; stackLen--) {
      const top = (stackLen - 2) * 8;
      compress(this.key, 0, stack, top, 0, 0, BLOCK_LEN, this.flags | PARENT, stack, top, 8);
    }
    return stackLen;
  }

  /** Describes the final node without changing the state, so that hashing can continue afterwards. */
  finalize(out: Output): Output {
    return this.#finish(this.#buf, 0, this.#bufLen, out);
  }

  /** `update(input)` then `finalize(out)` on a fresh state, without buffering the input. */
  finalizeWith(input: Uint8Array, out: Output): Output {
    if (this.#bufLen !== 0 || this.chunkCounter !== this.initialChunkCounter)
      throw new Error('finalizeWith needs a fresh state');
    return this.#finish(input, 0, input.length, out);
  }

  /** The final node when `len` bytes at `src[pos]` are the rest of the input, from chunk `chunkCounter`. */
  #finish(src: Uint8Array, pos: number, len: number, out: Output): Output {
    const counter = this.chunkCounter;
    const t = counter - this.initialChunkCounter;
    if (t === 0 && len <= CHUNK_LEN) return out.setChunk(src, pos, len, counter, this.key, this.flags);
    const stack = (finalStack ??= new Uint32Array(MAX_DEPTH * 8));
    if (this.cvStackLen > 0) stack.set(this.cvStack.subarray(0, this.cvStackLen * 8));
    const full = Math.floor(len / CHUNK_LEN);
    const partial = len - full * CHUNK_LEN;
    // Whole chunks, the last one included when it is whole: not the root, since there are at least two chunks.
    let stackLen = this.#pushChunks(src, pos, full, stack, this.cvStackLen);
    if (partial > 0) {
      stackLen = this.#mergeCompleted(stack, stackLen);
      out.setChunk(src, pos + full * CHUNK_LEN, partial, counter + full, this.key, this.flags);
    }
    this.chunkCounter = counter;
    if (partial === 0) {
      stackLen -= 2;
      out.setParent(stack, stackLen * 8, stackLen * 8 + 8, this.key, this.flags | PARENT);
    }
    // Fold the stack from the top: each entry is the left sibling of everything to its right.
    for (let i = stackLen - 1; i >= 0; i--) {
      out.chainingValue(out.block, 8);
      out.block.set(stack.subarray(i * 8, i * 8 + 8), 0);
      out.cv.set(this.key);
      out.counter = 0;
      out.blockLen = BLOCK_LEN;
      out.flags = this.flags | PARENT;
    }
    return out;
  }
}
