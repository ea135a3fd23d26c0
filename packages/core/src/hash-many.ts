import { abytes, describe } from './_assert.js';
import { toBytes, type Input } from './_bytes.js';
import { compress } from './_compress.js';
import { BLOCK_LEN, CHUNK_END, CHUNK_LEN, PARENT, ROOT } from './_constants.js';
import { HasherState } from './_hasher-state.js';
import { resolveMode, type Blake3Opts, type Mode } from './_options.js';
import { Output } from './_output.js';
import { manyKernel } from './backend.js';
import { MANY_IN, MANY_IN_LEN, MANY_JOBS, MANY_MAX_JOBS, MANY_OUT, MANY_OUT_HI, type ManyKernel } from './wasm/_kernel.js';

function assertInputs(inputs: unknown): asserts inputs is readonly Input[] {
  if (!Array.isArray(inputs)) throw new TypeError(`inputs must be an array, got ${describe(inputs)}`);
}

/**
 * Messages longer than this many chunks take the one-shot path (64-chunk subtrees and parents 4
 * at a time in the kernel) instead of one lane per chunk with parents merged in JS.
 */
const LANE_MAX_CHUNKS = 8;
/** Batches with fewer messages take the one-shot loop: a kernel step always hashes 8 lanes. */
const MIN_BATCH = 4;
/** Up to 64 output bytes come out of the kernel; longer outputs need the root node (see docs/wasm-kernel.md). */
const MAX_KERNEL_DKLEN = 2 * 32;

let state: HasherState | undefined;
let pendingMessages: Int32Array | undefined;
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

/**
 * The batch on the `many` kernel: messages are copied into WASM memory, zero-padded to whole
 * blocks, as jobs of one chunk each, in pieces of up to MANY_IN_LEN bytes; one call per piece.
 * A message of one chunk is one job whose last block carries ROOT, so the kernel's output is
 * its digest; longer messages are one job per chunk, and their chaining values are merged here.
 */
function hashBatch(k: ManyKernel, bytes: readonly Uint8Array[], mode: Mode, sink: Sink): void {
  const { mem8, mem32 } = k;
  const jobWord = MANY_JOBS >> 2;
  // Per message of the piece: its index, its first job, its chunk count.
  const pending = (pendingMessages ??= new Int32Array(3 * MANY_MAX_JOBS));
  let count = 0;
  let inPos = MANY_IN;
  let jobs = 0;

  const flush = () => {
    if (jobs === 0) return;
    k.run(jobs, mode.key, mode.flags);
    for (let p = 0; p < 3 * count; p += 3) {
      const i = pending[p], job = pending[p + 1], chunks = pending[p + 2];
      if (chunks === 1) {
        const o = MANY_OUT + 32 * job;
        if (sink.dkLen <= 32) {
          if (sink.out) sink.out.set(mem8.subarray(o, o + sink.dkLen), i * sink.dkLen);
          else sink.digests![i] = mem8.slice(o, o + sink.dkLen);
        } else {
          const d = digestFor(sink, i);
          d.set(mem8.subarray(o, o + 32));
          d.set(mem8.subarray(MANY_OUT_HI + 32 * job, MANY_OUT_HI + 32 * job + sink.dkLen - 32), 32);
        }
      } else {
        rootOfChunks(mem32, (MANY_OUT >> 2) + 8 * job, chunks, mode).rootBytes(digestFor(sink, i));
      }
    }
    count = 0;
    inPos = MANY_IN;
    jobs = 0;
  };

  for (let i = 0; i < bytes.length; i++) {
    const msg = bytes[i];
    const len = msg.length;
    const chunks = len <= CHUNK_LEN ? 1 : Math.ceil(len / CHUNK_LEN);
    if (chunks > LANE_MAX_CHUNKS) {
      hashOne(msg, mode, sink, i);
      continue;
    }
    const padded = len === 0 ? BLOCK_LEN : Math.ceil(len / BLOCK_LEN) * BLOCK_LEN;
    if (inPos + padded > MANY_IN + MANY_IN_LEN || jobs + chunks > MANY_MAX_JOBS) flush();
    // A byte loop into the WASM memory's view instead of set() for messages up to 64 bytes: 64 B
    // batches 271-300 vs 528-532 MB/s (Node 20).
    mem8.set(msg, inPos);
    for (let b = inPos + len; b < inPos + padded; b++) mem8[b] = 0;
    pending[3 * count] = i;
    pending[3 * count + 1] = jobs;
    pending[3 * count + 2] = chunks;
    count++;
    for (let c = 0; c < chunks; c++) {
      const rest = len - c * CHUNK_LEN; // > 0 but for the empty message
      const blocks = rest <= BLOCK_LEN ? 1 : rest >= CHUNK_LEN ? CHUNK_LEN / BLOCK_LEN : Math.ceil(rest / BLOCK_LEN);
      const lastLen = Math.min(rest, CHUNK_LEN) - (blocks - 1) * BLOCK_LEN;
      const w = jobWord + 4 * jobs++;
      mem32[w] = inPos + c * CHUNK_LEN;
      mem32[w + 1] = blocks;
      mem32[w + 2] = c;
      mem32[w + 3] = lastLen | ((chunks === 1 ? CHUNK_END | ROOT : CHUNK_END) << 8);
    }
    inPos += padded;
  }
  flush();
}

/**
 * The root node of a message of `n` (2 to 8) chunks whose chaining values are the 8n words at
 * `mem32[at]`: the reference's stack rule (merge while the chunk count is even), the stack kept
 * in place over the chaining values already consumed, then folded onto the last chunk's; the
 * top parent stays uncompressed.
 */
function rootOfChunks(mem32: Uint32Array, at: number, n: number, mode: Mode): Output {
  const { key } = mode;
  const flags = mode.flags | PARENT;
  let sp = 0;
  for (let c = 0; c < n; c++) {
    // Entry sp is pushed over a chaining value already read (sp <= c).
    if (sp !== c) mem32.copyWithin(at + 8 * sp, at + 8 * c, at + 8 * c + 8);
    sp++;
    if (c === n - 1) break;
    for (let total = c + 1; (total & 1) === 0; total >>= 1) {
      sp--;
      compress(key, 0, mem32, at + 8 * (sp - 1), 0, 0, BLOCK_LEN, flags, mem32, at + 8 * (sp - 1), 8);
    }
  }
  for (sp--; sp >= 2; sp--) compress(key, 0, mem32, at + 8 * (sp - 1), 0, 0, BLOCK_LEN, flags, mem32, at + 8 * (sp - 1), 8);
  return output.setParent(mem32, at, at + 8, key, flags);
}

/**
 * Hashes each input into its digest, after validating everything (so a bad input leaves `out`
 * untouched). One mode for the whole batch.
 */
function hashEach(inputs: readonly Input[], opts: Blake3Opts | undefined, out: Uint8Array | undefined): Uint8Array[] | undefined {
  const mode = resolveMode(opts);
  // Validated and viewed as bytes up front, so that nothing is hashed when one input is bad.
  let bytes = inputs as readonly Uint8Array[];
  for (let i = 0; i < inputs.length; i++) {
    if (!(inputs[i] instanceof Uint8Array)) {
      bytes = inputs.map((x, j) => toBytes(x, `inputs[${j}]`));
      break;
    }
  }
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
  assertInputs(inputs);
  return hashEach(inputs, opts, undefined)!;
}

/** Like hashMany, writing the digests one after another into `out`, which must hold `inputs.length * dkLen` bytes. */
export function hashManyInto(inputs: readonly Input[], out: Uint8Array, opts?: Blake3Opts): void {
  assertInputs(inputs);
  const bytes = abytes(out, 'out');
  const dkLen = resolveMode(opts).dkLen;
  if (bytes.length !== inputs.length * dkLen) {
    throw new RangeError(`out must be ${inputs.length * dkLen} bytes (${inputs.length} digests of ${dkLen}), got ${bytes.length}`);
  }
  hashEach(inputs, opts, bytes);
}
