import { abytes, describe } from './_assert.js';
import { toBytes, wordsFromBytes, wordsToBytes, type Input } from './_bytes.js';
import { compress } from './_compress.js';
import { BLOCK_LEN, CHUNK_END, CHUNK_LEN, PARENT, ROOT } from './_constants.js';
import { HasherState } from './_hasher-state.js';
import { resolveMode, type Blake3Opts, type Mode } from './_options.js';
import { Output } from './_output.js';
import { manyKernel } from './backend.js';
import { MANY_CV, MANY_CV_SLOTS, MANY_HI_DELTA, MANY_IN, MANY_IN_LEN, MANY_JOBS, MANY_MAX_JOBS, MANY_MAX_MESSAGES, MANY_OUT, type ManyKernel } from './wasm/_kernel.js';

/**
 * Messages longer than this many chunks take the one-shot path (64-chunk subtrees and parents 4
 * at a time in the kernel) instead of one lane per chunk and per parent.
 */
const LANE_MAX_CHUNKS = 16;
/** Batches with fewer messages take the one-shot loop: a kernel step always hashes 8 lanes. */
const MIN_BATCH = 4;
/** Up to 64 output bytes come out of the kernel; longer outputs need the root node (see docs/wasm-kernel.md). */
const MAX_KERNEL_DKLEN = 2 * 32;

let state: HasherState | undefined;
/** Per message of a piece: its index in the batch. */
let pieceMessages: Int32Array | undefined;
/** Per message of more than one chunk: its position in the piece, first node slot, node count. */
let pieceTrees: Int32Array | undefined;
const output = new Output();

/** Where digest `i` goes: a fresh array per message, or `out` at `i * dkLen`. */
type Sink = { readonly digests: Uint8Array[] | undefined; readonly out: Uint8Array | undefined; readonly dkLen: number };

function digestFor(sink: Sink, i: number): Uint8Array {
  const d = sink.out ? sink.out.subarray(i * sink.dkLen, (i + 1) * sink.dkLen) : new Uint8Array(sink.dkLen);
  if (sink.digests) sink.digests[i] = d;
  return d;
}

/** One message through the one-shot path. */
function hashOne(bytes: Uint8Array, mode: Mode, sink: Sink, i: number): void {
  (state ??= new HasherState()).init(mode.key, mode.flags).finalizeWith(bytes, output).rootBytes(digestFor(sink, i));
}

const JOB_WORDS = 8;
const PARENT_JOB = BLOCK_LEN | (PARENT << 8);
const ROOT_PARENT_JOB = BLOCK_LEN | ((PARENT | ROOT) << 8);

// The piece being filled. Module state and plain functions rather than closures per call: closures
// made afresh per batch gave V8 a new call target each time ("wrong call target" deopts), and
// random 0..4 KiB batches ran at 1100 or 1500 MB/s depending on how that settled.
let count = 0; // messages in the piece
let treeCount = 0;
let inPos = MANY_IN;
let jobs = 0;
let cvTop = 0; // next free chaining-value slot

/** Appends a job to the table (see manyFunction in the kernel generator). */
function addJob(mem32: Uint32Array, addr: number, blocks: number, counter: number, last: number, outAddr: number): void {
  const w = (MANY_JOBS >> 2) + JOB_WORDS * jobs++;
  mem32[w] = addr;
  mem32[w + 1] = blocks;
  mem32[w + 2] = counter;
  mem32[w + 3] = last;
  mem32[w + 4] = outAddr;
}

/** Hashes the piece: every chunk in one call, then one call per tree level; then its digests. */
function flushPiece(k: ManyKernel, mode: Mode, sink: Sink, messages: Int32Array, trees: Int32Array): void {
  if (count === 0) return;
  const { mem8, mem32 } = k;
  const { key, flags } = mode;
  const { out, digests, dkLen } = sink;
  const wide = dkLen > 32;
  k.run(jobs, key, flags, wide);
  // Parent levels: adjacent nodes pair up left to right and an odd last node moves up as it
  // is, which gives the reference tree (left subtrees are complete powers of two).
  for (let open = treeCount; open > 0; ) {
    jobs = 0;
    for (let t = 0; t < 3 * treeCount; t += 3) {
      const nodes = trees[t + 2];
      if (nodes < 2) continue;
      const first = trees[t + 1];
      if (nodes === 2) {
        addJob(mem32, MANY_CV + 32 * first, 1, 0, ROOT_PARENT_JOB, MANY_OUT + 32 * trees[t]);
        trees[t + 2] = 1;
        open--;
        continue;
      }
      trees[t + 1] = cvTop;
      for (let p = 0; p + 1 < nodes; p += 2) addJob(mem32, MANY_CV + 32 * (first + p), 1, 0, PARENT_JOB, MANY_CV + 32 * cvTop++);
      if (nodes & 1) {
        const from = (MANY_CV >> 2) + 8 * (first + nodes - 1);
        mem32.copyWithin((MANY_CV >> 2) + 8 * cvTop++, from, from + 8);
      }
      trees[t + 2] = (nodes + 1) >> 1;
    }
    k.run(jobs, key, flags, wide);
  }
  // Digests, all at MANY_OUT in piece order: one copy when they fill consecutive slots of `out`.
  const firstIndex = messages[0];
  if (out && dkLen === 32 && messages[count - 1] - firstIndex === count - 1) {
    out.set(mem8.subarray(MANY_OUT, MANY_OUT + 32 * count), 32 * firstIndex);
  } else {
    for (let p = 0; p < count; p++) {
      const i = messages[p];
      const o = MANY_OUT + 32 * p;
      if (!wide) {
        if (out) out.set(mem8.subarray(o, o + dkLen), i * dkLen);
        else digests![i] = mem8.slice(o, o + dkLen);
      } else {
        const d = digestFor(sink, i);
        d.set(mem8.subarray(o, o + 32));
        d.set(mem8.subarray(o + MANY_HI_DELTA, o + MANY_HI_DELTA + dkLen - 32), 32);
      }
    }
  }
  count = treeCount = jobs = cvTop = 0;
  inPos = MANY_IN;
}

/**
 * The batch on the `many` kernel, in pieces of up to MANY_IN_LEN bytes of zero-padded input,
 * MANY_MAX_JOBS chunks or MANY_MAX_MESSAGES messages. Per piece, one call hashes every chunk of
 * every message, one chunk per lane; then one call per tree level hashes the parents of all
 * messages of more than one chunk (at most 4 levels for 16 chunks), so no compression runs in
 * JS. Each message's root output lands at MANY_OUT + 32 * (its position in the piece).
 */
function hashBatch(k: ManyKernel, bytes: readonly Uint8Array[], mode: Mode, sink: Sink): void {
  const { mem8, mem32 } = k;
  const messages = (pieceMessages ??= new Int32Array(MANY_MAX_MESSAGES));
  const trees = (pieceTrees ??= new Int32Array(3 * MANY_MAX_MESSAGES));
  count = treeCount = jobs = cvTop = 0;
  inPos = MANY_IN;
  for (let i = 0; i < bytes.length; i++) {
    const msg = bytes[i];
    const len = msg.length;
    const chunks = len <= CHUNK_LEN ? 1 : Math.ceil(len / CHUNK_LEN);
    if (chunks > LANE_MAX_CHUNKS) {
      hashOne(msg, mode, sink, i);
      continue;
    }
    const padded = len === 0 ? BLOCK_LEN : (len + BLOCK_LEN - 1) & -BLOCK_LEN;
    if (count === MANY_MAX_MESSAGES || inPos + padded > MANY_IN + MANY_IN_LEN || jobs + chunks > MANY_MAX_JOBS || cvTop + 3 * chunks > MANY_CV_SLOTS) flushPiece(k, mode, sink, messages, trees);
    mem8.set(msg, inPos);
    for (let b = inPos + len; b < inPos + padded; b++) mem8[b] = 0;
    if (chunks === 1) {
      addJob(mem32, inPos, padded / BLOCK_LEN, 0, (len - padded + BLOCK_LEN) | ((CHUNK_END | ROOT) << 8), MANY_OUT + 32 * count);
    } else {
      trees[3 * treeCount] = count;
      trees[3 * treeCount + 1] = cvTop;
      trees[3 * treeCount + 2] = chunks;
      treeCount++;
      for (let c = 0; c < chunks; c++) {
        const rest = Math.min(len - c * CHUNK_LEN, CHUNK_LEN); // > 0
        const blocks = (rest + BLOCK_LEN - 1) >> 6;
        addJob(mem32, inPos + c * CHUNK_LEN, blocks, c, (rest - (blocks - 1) * BLOCK_LEN) | (CHUNK_END << 8), MANY_CV + 32 * cvTop++);
      }
    }
    messages[count++] = i;
    inPos += padded;
  }
  flushPiece(k, mode, sink, messages, trees);
}

const parentBlock = new Uint32Array(16);
const parentCv = new Uint32Array(8);

/**
 * The non-root chaining values of the parents whose 64-byte nodes (left CV, then right CV) lie
 * one after another in `nodes`: 32 bytes each, in order. On the `many` kernel, each node is a
 * one-block job with PARENT, 8 at a time; the JS backend compresses them one by one.
 */
export function parentChainingValues(nodes: Uint8Array, mode: Mode): Uint8Array {
  const count = nodes.length / BLOCK_LEN;
  const out = new Uint8Array(32 * count);
  const k = count >= MIN_BATCH ? manyKernel() : undefined;
  if (!k) {
    const flags = mode.flags | PARENT;
    for (let i = 0; i < count; i++) {
      wordsFromBytes(nodes.subarray(BLOCK_LEN * i, BLOCK_LEN * (i + 1)), parentBlock);
      compress(mode.key, 0, parentBlock, 0, 0, 0, BLOCK_LEN, flags, parentCv, 0, 8);
      wordsToBytes(parentCv, 0, out, 32 * i, 32);
    }
    return out;
  }
  const { mem8, mem32 } = k;
  for (let done = 0; done < count; ) {
    const n = Math.min(count - done, MANY_MAX_MESSAGES);
    mem8.set(nodes.subarray(BLOCK_LEN * done, BLOCK_LEN * (done + n)), MANY_IN);
    jobs = 0;
    for (let i = 0; i < n; i++) addJob(mem32, MANY_IN + BLOCK_LEN * i, 1, 0, PARENT_JOB, MANY_OUT + 32 * i);
    k.run(n, mode.key, mode.flags, false);
    out.set(mem8.subarray(MANY_OUT, MANY_OUT + 32 * n), 32 * done);
    done += n;
  }
  jobs = 0;
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
  for (let i = 0; i < n; i++) bytes[i] = toBytes((inputs as readonly unknown[])[i], `inputs[${i}]`);
  return bytes;
}

/** Hashes each input into its digest; `out`, when given, is untouched unless every input is valid. */
function hashEach(bytes: readonly Uint8Array[], mode: Mode, out: Uint8Array | undefined): Uint8Array[] | undefined {
  const sink: Sink = { digests: out ? undefined : new Array<Uint8Array>(bytes.length), out, dkLen: mode.dkLen };
  const k = bytes.length >= MIN_BATCH && mode.dkLen <= MAX_KERNEL_DKLEN ? manyKernel() : undefined;
  if (k) hashBatch(k, bytes, mode, sink);
  else for (let i = 0; i < bytes.length; i++) hashOne(bytes[i], mode, sink, i);
  return sink.digests;
}

/**
 * The BLAKE3 of each of many inputs, in one call: `hashMany(xs, opts)[i]` equals `blake3(xs[i], opts)`.
 * For batches of small messages (records, Merkle leaves, cache keys): with the wasm-simd backend
 * 8 messages are hashed at once, one per SIMD lane.
 */
export function hashMany(inputs: readonly Input[], opts?: Blake3Opts): Uint8Array[] {
  const bytes = snapshotInputs(inputs);
  return hashEach(bytes, resolveMode(opts), undefined)!;
}

/** Like hashMany, writing the digests one after another into `out`, which must hold `inputs.length * dkLen` bytes. */
export function hashManyInto(inputs: readonly Input[], out: Uint8Array, opts?: Blake3Opts): void {
  const bytes = snapshotInputs(inputs);
  const target = abytes(out, 'out');
  const mode = resolveMode(opts);
  const { length } = bytes;
  if (target.length !== length * mode.dkLen) {
    throw new RangeError(`out must be ${length * mode.dkLen} bytes (${length} digests of ${mode.dkLen}), got ${target.length}`);
  }
  hashEach(bytes, mode, target);
}
