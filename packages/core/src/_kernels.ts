// The contract every backend implements (the shape of the Rust crate's `platform.rs`): the bulk
// operations of a hash (`Kernels`) and the jobs of many small trees (`ManyJobs`), with the rest
// (CV stack, last chunk, final node, tree planning) shared JS above. ManyJobs is apart from the
// table so that bundles which never hash batches leave it out. A leaf: it imports nothing, so
// backends and their callers depend on it, never the other way round. Which backend serves
// which call is decided in `backend.ts` alone.

export type Backend = 'wasm-simd' | 'js';

/**
 * The most chunks one `chunks()` call takes: one copy into WASM memory, one call (64 KiB).
 * 16 or 32 (copies that stay in L1) measured the same within noise (1 MiB: 1953-2019 / 1984-2061 vs 1938-1990 MB/s).
 */
export const MAX_CALL_CHUNKS = 64;

/** A node not yet compressed (spec, section 2.6): what root output blocks are made from. */
export interface KernelNode {
  readonly cv: Uint32Array;
  readonly block: Uint32Array;
  readonly blockLen: number;
  readonly flags: number;
}

/** The most output bytes per message that ManyJobs gives: words 0-15 of root output block 0. */
export const MANY_MAX_OUT = 64;

export interface Kernels {
  readonly name: Backend;
  /**
   * Hashes `n` (1 to MAX_CALL_CHUNKS) whole chunks of `src` from byte `pos`, none of them the
   * root, the first with chunk counter `counter`; then merges `merges` levels of parents (n is
   * then a multiple of 2^merges). Writes the n >> merges chaining values to `out[outPos]`.
   */
  chunks(
    src: Uint8Array,
    pos: number,
    n: number,
    counter: number,
    key: Uint32Array,
    flags: number,
    merges: number,
    out: Uint32Array,
    outPos: number,
  ): void;
  /** Writes `blocks` 64-byte root output blocks of `node`, from output block `hi * 2^32 + lo`, to `out[outPos]`. */
  rootBlocks(node: KernelNode, out: Uint8Array, outPos: number, blocks: number, lo: number, hi: number): void;
  /** The first `dkLen` (at most 32) bytes of the hash of the first `len` bytes of `src`, a whole message of one chunk or less. */
  singleChunk(src: Uint8Array, len: number, key: Uint32Array, flags: number, dkLen: number): Uint8Array;
}

/**
 * Nodes of many small trees, hashed side by side in runs of independent jobs. A piece of input
 * is copied in, `start` sets the mode, jobs are queued, `run` hashes them all; the next level's
 * jobs read the chaining values the last run wrote (`start` holds until the next `start`). Places are indices: input bytes of the piece, chaining-value slots, output
 * slots (one per message). A piece stays within the limits below.
 */
export interface ManyJobs {
  /** Bytes of zero-padded input one piece holds. */
  readonly inputLen: number;
  /** Jobs one run takes. */
  readonly maxJobs: number;
  /** Output slots: messages of one piece. */
  readonly maxMessages: number;
  /** Chaining-value slots. */
  readonly cvSlots: number;
  /** Copies `bytes` to input byte `at`, zero-padded to `padded` bytes (whole blocks). */
  input(bytes: Uint8Array, at: number, padded: number): void;
  /**
   * Queues the chunk of `len` bytes (0 only for the empty message) at input byte `at`, with chunk
   * counter `counter` (below 2^32): the root, to output slot `to`, or else to chaining-value slot `to`.
   */
  chunk(at: number, len: number, counter: number, root: boolean, to: number): void;
  /** Queues the parent of chaining-value slots `left` and `left + 1`: the root, to output slot `to`, or else to chaining-value slot `to`. */
  parent(left: number, root: boolean, to: number): void;
  /** Queues the non-root parent whose 64-byte node is at input byte `at`, its chaining value to output slot `to`. */
  inputParent(at: number, to: number): void;
  /** Copies chaining-value slot `from` to slot `to` now (a node that moves up a level as it is). */
  moveCv(from: number, to: number): void;
  /** Sets the mode of the jobs that follow: `key`, `flags`; root outputs get 64 bytes when `wide`, else 32. */
  start(key: Uint32Array, flags: number, wide: boolean): void;
  /** Hashes the queued jobs (a backend may have hashed them as they came). */
  run(): void;
  /** The first `n` (at most MANY_MAX_OUT, or 32 unless the run was wide) output bytes of slot `slot`, in a new array. */
  output(slot: number, n: number): Uint8Array;
  /** Like output(), into `out[outPos]`. */
  outputInto(slot: number, n: number, out: Uint8Array, outPos: number): void;
  /** Copies the 32-byte outputs of slots 0 to `count - 1`, one after another, to `out[outPos]`. */
  outputs(count: number, out: Uint8Array, outPos: number): void;
}
