import { abytes, describe, isPlainBytes } from './_assert.js';
import { toBytes, type Input } from './_bytes.js';
import { BLOCK_LEN, CHUNK_LEN } from './_constants.js';
import { HasherState } from './_hasher-state.js';
import { MANY_MAX_OUT, type ManyJobs } from './_kernels.js';
import { resolveMode, type Blake3Opts, type ResolvedMode } from './_options.js';
import { Output } from './_output.js';
import { manyJobs } from './backend.js';

/**
 * Messages longer than this many chunks take the one-shot path (64-chunk subtrees and parents 4
 * at a time in the kernel) instead of one lane per chunk and per parent.
 */
const LANE_MAX_CHUNKS = 16;

let state: HasherState | undefined;
/** Per message of a piece: its index in the batch. */
let pieceMessages: Int32Array | undefined;
/** Per message of more than one chunk: its position in the piece, first node slot, node count. */
let pieceTrees: Int32Array | undefined;
const output = new Output();

// Where digests go. The `out` of hashManyInto may be memory the inputs lie in (the same buffer,
// another view of it, one SharedArrayBuffer reached through two objects), so once a digest is due
// while inputs may still be unread, digests go to a stage instead, and `out` gets them in one
// copy after the last input was read. Finding the overlap instead would call the engine's `buffer`
// getter per input: 24 ns per 64-byte message hashed in 334 ns (Node, one process, load 9). A batch
// that fits one piece (wasm-simd: 1,024 messages, 256 KiB; js: 256, 64 KiB) of messages up to 16
// chunks and digests up to 64 bytes is not staged. The stage is kept up to STAGE_KEEP bytes: a new
// one per call cost 14-20% of 16,384 x 64 B (hashManyInto, one process, load 16-19).
let sink: Uint8Array | undefined;
/** Where the digests end up: set once they are staged, or from the start when nothing can overlap. */
let dest: Uint8Array | undefined;
let stage: Uint8Array | undefined;
const STAGE_KEEP = 1 << 20;

/** Before a digest is written while inputs may remain unread: from now on, digests go to the stage. */
function inputsRemain(): void {
  if (dest) return;
  const n = (dest = sink!).length;
  if (!stage || stage.length < n) stage = new Uint8Array(n);
  sink = stage.subarray(0, n);
}

/** One message through the one-shot path, its digest into the sink at `i * dkLen`. */
function hashOne(bytes: Uint8Array, mode: ResolvedMode, i: number): void {
  const { dkLen } = mode;
  inputsRemain();
  (state ??= new HasherState())
    .init(mode.key, mode.flags)
    .finalizeWith(bytes, output)
    .rootBytes(sink!.subarray(i * dkLen, (i + 1) * dkLen));
}

// The piece being filled. Module state and plain functions rather than closures per call: closures
// made afresh per batch gave V8 a new call target each time ("wrong call target" deopts), and
// random 0..4 KiB batches ran at 1100 or 1500 MB/s depending on how that settled.
let count = 0; // messages in the piece
let treeCount = 0;
let inPos = 0; // input bytes of the piece
let jobs = 0; // jobs queued
let cvTop = 0; // next free chaining-value slot

/** Hashes the piece: every chunk in one run, then one run per tree level; then its digests. */
function flushPiece(k: ManyJobs, dkLen: number, messages: Int32Array, trees: Int32Array): void {
  if (count === 0) return;
  k.run();
  // Parent levels: adjacent nodes pair up left to right and an odd last node moves up as it
  // is, which gives the reference tree (left subtrees are complete powers of two).
  for (let open = treeCount; open > 0;) {
    for (let t = 0; t < 3 * treeCount; t += 3) {
      const nodes = trees[t + 2];
      if (nodes < 2) continue;
      const first = trees[t + 1];
      if (nodes === 2) {
        k.parent(first, true, trees[t]);
        trees[t + 2] = 1;
        open--;
        continue;
      }
      trees[t + 1] = cvTop;
      for (let p = 0; p + 1 < nodes; p += 2) k.parent(first + p, false, cvTop++);
      if (nodes & 1) k.moveCv(first + nodes - 1, cvTop++);
      trees[t + 2] = (nodes + 1) >> 1;
    }
    k.run();
  }
  // Digests, one output slot per message in piece order: one copy when they fill consecutive slots of `out`.
  const firstIndex = messages[0];
  const out = sink!;
  if (dkLen === 32 && messages[count - 1] - firstIndex === count - 1) k.outputs(count, out, 32 * firstIndex);
  else for (let p = 0; p < count; p++) k.outputInto(p, dkLen, out, messages[p] * dkLen);
  count = treeCount = jobs = cvTop = 0;
  inPos = 0;
}

/**
 * The batch as jobs, in pieces within the backend's limits (input bytes, jobs per run, output
 * slots, chaining-value slots). Per piece, one run hashes every chunk of every message, one
 * chunk per lane; then one run per tree level hashes the parents of all messages of more than
 * one chunk (at most 4 levels for 16 chunks). Message `p` of the piece gets output slot `p`.
 */
function hashBatch(k: ManyJobs, bytes: readonly Uint8Array[], mode: ResolvedMode): void {
  if (!pieceMessages || pieceMessages.length < k.maxMessages)
    ((pieceMessages = new Int32Array(k.maxMessages)), (pieceTrees = new Int32Array(3 * k.maxMessages)));
  const messages = pieceMessages,
    trees = pieceTrees!;
  count = treeCount = jobs = cvTop = 0;
  inPos = 0;
  k.start(mode.key, mode.flags, mode.dkLen > 32);
  for (let i = 0; i < bytes.length; i++) {
    const msg = bytes[i];
    const len = msg.length;
    const chunks = len <= CHUNK_LEN ? 1 : Math.ceil(len / CHUNK_LEN);
    if (chunks > LANE_MAX_CHUNKS) {
      hashOne(msg, mode, i);
      continue;
    }
    const padded = len === 0 ? BLOCK_LEN : (len + BLOCK_LEN - 1) & -BLOCK_LEN;
    if (
      count === k.maxMessages ||
      inPos + padded > k.inputLen ||
      jobs + chunks > k.maxJobs ||
      cvTop + 3 * chunks > k.cvSlots
    ) {
      inputsRemain();
      flushPiece(k, mode.dkLen, messages, trees);
    }
    k.input(msg, inPos, padded);
    if (chunks === 1) {
      k.chunk(inPos, len, 0, true, count);
    } else {
      trees[3 * treeCount] = count;
      trees[3 * treeCount + 1] = cvTop;
      trees[3 * treeCount + 2] = chunks;
      treeCount++;
      for (let c = 0; c < chunks; c++)
        k.chunk(inPos + c * CHUNK_LEN, Math.min(len - c * CHUNK_LEN, CHUNK_LEN), c, false, cvTop++);
    }
    jobs += chunks;
    messages[count++] = i;
    inPos += padded;
  }
  flushPiece(k, mode.dkLen, messages, trees);
}

/**
 * The non-root chaining values of the parents whose 64-byte nodes (left CV, then right CV) lie
 * one after another in `nodes`: 32 bytes each, in order. As jobs, one per node (on the wasm-simd
 * backend 4 at a time).
 */
export function parentChainingValues(nodes: Uint8Array, mode: ResolvedMode): Uint8Array {
  const count = nodes.length / BLOCK_LEN;
  const out = new Uint8Array(32 * count);
  const k = manyJobs(count);
  k.start(mode.key, mode.flags, false);
  for (let done = 0; done < count;) {
    const n = Math.min(count - done, k.maxMessages, k.inputLen / BLOCK_LEN);
    k.input(nodes.subarray(BLOCK_LEN * done, BLOCK_LEN * (done + n)), 0, BLOCK_LEN * n);
    for (let i = 0; i < n; i++) k.inputParent(BLOCK_LEN * i, i);
    k.run();
    k.outputs(n, out, 32 * done);
    done += n;
  }
  return out;
}

/**
 * The inputs as bytes, read once each into a new array: every access that can run the caller's
 * code (a Proxy, an accessor element, a getter on `length`) happens here, before the batch fills
 * the module's piece, so a hash started from that code cannot disturb it; later reads see
 * nothing the caller can change. A hole or any other bad element is named by its index.
 */
function snapshotInputs(inputs: unknown): Uint8Array[] {
  if (!Array.isArray(inputs)) throw new TypeError(`inputs must be an array, got ${describe(inputs)}`);
  const n = (inputs as readonly unknown[]).length;
  const bytes = new Array<Uint8Array>(n);
  for (let i = 0; i < n; i++) {
    const x = (inputs as readonly unknown[])[i];
    // toBytes's own first case, without building the argument's name for every message.
    bytes[i] = isPlainBytes(x) && x.length !== 0 ? x : toBytes(x, `inputs[${i}]`);
  }
  return bytes;
}

/**
 * Hashes each input into its digest in `out`, one after another. Without `fresh` (`out` itself,
 * which nothing else can reach), `out` may lie in the inputs' memory: no digest reaches it before
 * every input was read.
 */
function hashEach(bytes: readonly Uint8Array[], mode: ResolvedMode, out: Uint8Array, fresh?: Uint8Array): void {
  ((sink = out), (dest = fresh));
  if (mode.dkLen <= MANY_MAX_OUT) hashBatch(manyJobs(bytes.length), bytes, mode);
  else for (let i = 0; i < bytes.length; i++) hashOne(bytes[i], mode, i);
  if (dest !== sink) dest?.set(sink!);
  // Neither the caller's array nor a stage past STAGE_KEEP stays reachable from here.
  sink = dest = undefined;
  if (stage && stage.length > STAGE_KEEP) stage = undefined;
}

/**
 * The BLAKE3 of each of many inputs, in one call: `hashMany(xs, opts)[i]` equals `blake3(xs[i], opts)`.
 * For batches of small messages (records, Merkle leaves, cache keys): with the wasm-simd backend
 * 4 messages are hashed at once, one per SIMD lane. The digests are views of one ArrayBuffer per
 * call, `dkLen` bytes each at `i * dkLen`: to transfer one (`postMessage`) or hand its `buffer` on,
 * copy it first (`digest.slice()`), or the other digests of the call go with it.
 */
export function hashMany(inputs: readonly Input[], opts?: Blake3Opts): Uint8Array[] {
  const bytes = snapshotInputs(inputs);
  const mode = resolveMode(opts);
  const { dkLen } = mode;
  const n = bytes.length;
  // One buffer for the whole batch, each digest a view of its own bytes: a backing store per
  // digest was most of the time of a batch of small messages.
  let buffer: ArrayBuffer;
  try {
    buffer = new ArrayBuffer(n * dkLen);
  } catch {
    throw new RangeError(`inputs.length × dkLen must fit in one ArrayBuffer, got ${n} × ${dkLen} bytes`);
  }
  const all = new Uint8Array(buffer);
  hashEach(bytes, mode, all, all);
  const digests = new Array<Uint8Array>(n);
  for (let i = 0; i < n; i++) digests[i] = new Uint8Array(buffer, i * dkLen, dkLen);
  return digests;
}

/**
 * Like hashMany, writing the digests one after another into `out`, which must hold
 * `inputs.length * dkLen` bytes. `out` may overlap the inputs (a Merkle level hashed in place):
 * every input is read before any digest is written, as if the digests went to a new array first.
 */
export function hashManyInto(inputs: readonly Input[], out: Uint8Array, opts?: Blake3Opts): void {
  const bytes = snapshotInputs(inputs);
  const target = abytes(out, 'out');
  const mode = resolveMode(opts);
  const { length } = bytes;
  if (target.length !== length * mode.dkLen) {
    throw new RangeError(
      `out must be ${length * mode.dkLen} bytes (${length} digests of ${mode.dkLen}), got ${target.length}`,
    );
  }
  hashEach(bytes, mode, target);
}
