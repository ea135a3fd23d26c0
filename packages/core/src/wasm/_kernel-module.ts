// Generates the WebAssembly SIMD kernel of the wasm-simd backend at run time: no .wasm file is
// shipped. Inter-chunk SIMD: lane i of every v128 holds the same word of a different chunk (or
// parent, or output block), so the rounds need no cross-lane shuffles.
//
// Memory layout (bytes), one fixed memory reused by every call:
//   IN_PTR      input chunks, copied in by JS right before a call (MAX_CHUNKS KiB)
//   CV_PTR      chaining values, word-sliced in groups of 4: CV k, word j at
//               CV_PTR + 128 * (k >> 2) + 16 * j + 4 * (k & 3). Chunks write them that way and
//               parents read and write them that way, so no level ever transposes a CV.
//   KEY_PTR     the 8 key words of the hash
//   ROOT_PTR    the root node for XOF output: 8 chaining-value words, then the 16 block words
//   XOF_PTR     output blocks, in stream order
//   MANY_*      `many`: lane state, a job table, job outputs and the jobs' padded input (below)
import { BLOCK_LEN, CHUNK_END, CHUNK_LEN, CHUNK_START, IV, PARENT, ROOT } from '../_constants.js';
import { encodeModule, FunctionBody, type FuncDef, type Template } from './_module.js';

export const MAX_CHUNKS = 64;
export const XOF_MAX_GROUPS = 64;
export const IN_PTR = 0;
export const CV_PTR = IN_PTR + MAX_CHUNKS * CHUNK_LEN;
// One spare group: the last parent level reads a right-hand group that holds no valid CV.
const CV_BYTES = (MAX_CHUNKS / 4 + 1) * 128;
export const KEY_PTR = CV_PTR + CV_BYTES;
export const ROOT_PTR = KEY_PTR + 32;
export const XOF_PTR = ROOT_PTR + 96;
// `many`: 8 lanes, each i32 array below holds one word per lane (lanes 4g..4g+3 = group g's vector).
const MANY_LANES = 8;
const LANE_PTR = XOF_PTR + XOF_MAX_GROUPS * 4 * BLOCK_LEN; // address of the lane's current block
const LANE_LEFT = LANE_PTR + 4 * MANY_LANES; // blocks left in the lane's job, the current one included
const LANE_OUT = LANE_LEFT + 4 * MANY_LANES; // where the job's 16 output words go
const LANE_LAST = LANE_OUT + 4 * MANY_LANES; // the job's last block length
const LANE_FINAL = LANE_LAST + 4 * MANY_LANES; // the flags of the job's last block
const LANE_CTR = LANE_FINAL + 4 * MANY_LANES; // per-lane state words 12, 14, 15 of the next compression
const LANE_BLEN = LANE_CTR + 4 * MANY_LANES;
const LANE_FLAGS = LANE_BLEN + 4 * MANY_LANES;
const MANY_H = LANE_FLAGS + 4 * MANY_LANES; // chaining values, word-sliced: group g, word j at + 128g + 16j
const MANY_W2 = MANY_H + 2 * 128; // words 8-15 of the last output, word-sliced the same way
const MANY_DUMMY = MANY_W2 + 2 * 128; // where idle lanes write their output (8 words)
/**
 * The most jobs per `many` call: one per 64 bytes of input. Pieces of 256 KiB: random 0..4 KiB
 * batches ran 3-5% faster than with 64 KiB pieces (fewer calls, fewer lanes idle at the ends).
 */
export const MANY_MAX_JOBS = 4096;
/** The most messages per piece, each with a root output slot. */
export const MANY_MAX_MESSAGES = 1024;
/** Job table: 8 words per job (see manyFunction). */
export const MANY_JOBS = MANY_DUMMY + 32;
/**
 * Chaining values of the jobs that are not roots: chunks, then each parent level after the one
 * it reads, so a level never overwrites what a later job of the same call still loads. A tree of
 * c chunks takes at most 3c slots, and a piece holds at most MANY_IN_LEN / 544 chunks of
 * messages longer than one chunk (each such chunk but the last is 1024 bytes, the last >= 64).
 */
export const MANY_CV = MANY_JOBS + 32 * MANY_MAX_JOBS;
export const MANY_CV_SLOTS = 6 * (MANY_MAX_JOBS * BLOCK_LEN / CHUNK_LEN);
/** Root outputs, words 0-7 (the digest's first 32 bytes), one slot per message of the piece. */
export const MANY_OUT = MANY_CV + 32 * MANY_CV_SLOTS;
/** Root output words 8-15 go this many bytes after words 0-7, when the call asks for them. */
export const MANY_HI_DELTA = 32 * MANY_MAX_MESSAGES;
/** The jobs' input, each message zero-padded to whole blocks (and at least one). */
export const MANY_IN = MANY_OUT + 2 * MANY_HI_DELTA;
export const MANY_IN_LEN = MANY_MAX_JOBS * BLOCK_LEN;
const END = MANY_IN + MANY_IN_LEN;
export const PAGES = Math.ceil(END / 65536);

const MSG_PERMUTATION = [2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8];
// Columns, then diagonals, of the 4x4 state (spec, section 2.2).
const G_LANES = [
  [0, 4, 8, 12], [1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15],
  [0, 5, 10, 15], [1, 6, 11, 12], [2, 7, 8, 13], [3, 4, 9, 14],
] as const;

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
/** Byte indices of 32-bit lanes `lanes` of the concatenated shuffle operands (0-3 left, 4-7 right). */
const words = (...lanes: number[]): number[] => lanes.flatMap((l) => [4 * l, 4 * l + 1, 4 * l + 2, 4 * l + 3]);
// Rotations right by 16 and 8 move whole bytes: one byte shuffle (pshufb) instead of two shifts
// and an or (kernel alone, V8: 2219 vs 2024 MB/s).
const ROT16 = range(16).map((i) => (i & ~3) + ((i + 2) & 3));
const ROT8 = range(16).map((i) => (i & ~3) + ((i + 1) & 3));
// 4x4 transpose from shuffles that engines lower to unpack instructions (punpck{l,h}{dq,qdq}).
const UNPACK_LO32 = words(0, 4, 1, 5);
const UNPACK_HI32 = words(2, 6, 3, 7);
const UNPACK_LO64 = words(0, 1, 4, 5);
const UNPACK_HI64 = words(2, 3, 6, 7);
// Parents from two word-sliced CV groups: left children are the even lanes, right the odd.
const EVEN_LANES = words(0, 2, 4, 6);
const ODD_LANES = words(1, 3, 5, 7);

export type KernelOptions = {
  /** How message words are gathered across lanes: 16-byte loads + 4x4 transposes, or one 4-byte load per lane. */
  readonly loads?: 'transpose' | 'lanes';
  /** Groups of 4 chunks hashed side by side per loop step (1: 4 chunks, 2: 8 chunks). */
  readonly interleave?: 1 | 2;
};

/**
 * The 16 state vectors, 16 message vectors and scratch of one 4-lane compression. Message
 * vectors stay in locals: storing them after the transpose and loading them at each use measured
 * 1771 vs 2181 MB/s (V8, two interleaved groups).
 */
type Lanes = { readonly v: number[]; readonly m: number[]; readonly t: number; readonly r: number[] };

function lanes(f: FunctionBody): Lanes {
  return {
    v: range(16).map(() => f.local('v128')),
    m: range(16).map(() => f.local('v128')),
    t: f.local('v128'),
    r: range(4).map(() => f.local('v128')),
  };
}

/**
 * One G function on slots a, b, c, d (state), mx, my (message) and t (scratch): mixes a column
 * or diagonal of the state with two message vectors. Recorded once, replayed on each G's locals.
 */
function gTemplate(): Template {
  const [a, b, c, d, mx, my, t] = range(7);
  const f = new FunctionBody(0);
  const rotr = (n: number) => f.tee(t).i32(n).simd('i32x4.shr_u').get(t).i32(32 - n).simd('i32x4.shl').simd('v128.or');
  f.get(a).get(b).simd('i32x4.add').get(mx).simd('i32x4.add').tee(a);
  f.get(d).simd('v128.xor').tee(t).get(t).shuffle(ROT16).tee(d);
  f.get(c).simd('i32x4.add').tee(c);
  f.get(b).simd('v128.xor');
  rotr(12).tee(b);
  f.get(a).simd('i32x4.add').get(my).simd('i32x4.add').tee(a);
  f.get(d).simd('v128.xor').tee(t).get(t).shuffle(ROT8).tee(d);
  f.get(c).simd('i32x4.add').tee(c);
  f.get(b).simd('v128.xor');
  rotr(7).set(b);
  return f.template();
}

/**
 * The 7 rounds; the message permutation is applied here, by renaming, not at run time. With
 * several lane sets, their G functions alternate (independent work for the out-of-order core).
 */
function rounds(f: FunctionBody, sets: readonly { readonly v: readonly number[]; readonly m: readonly number[]; readonly t?: number }[], g: Template): void {
  let schedule = range(16);
  for (let r = 0; r < 7; r++) {
    for (let i = 0; i < 8; i++) {
      const [a, b, c, d] = G_LANES[i];
      for (const { v, m, t } of sets) {
        // Scratch `t` only for templates that use one (the SIMD G's rotations by 12 and 7).
        const slots = [v[a], v[b], v[c], v[d], m[schedule[2 * i]], m[schedule[2 * i + 1]]];
        f.replay(g, t === undefined ? slots : [...slots, t]);
      }
    }
    schedule = MSG_PERMUTATION.map((p) => schedule[p]);
  }
}

/** Transposes the 4x4 matrix of 32-bit words whose rows are in locals `rows` into locals `out` (`t`: scratch). */
function transpose(f: FunctionBody, rows: readonly number[], out: readonly number[], t: readonly number[]): void {
  const [r0, r1, r2, r3] = rows;
  f.get(r0).get(r1).shuffle(UNPACK_LO32).set(t[0]);
  f.get(r2).get(r3).shuffle(UNPACK_LO32).set(t[1]);
  f.get(r0).get(r1).shuffle(UNPACK_HI32).set(t[2]);
  f.get(r2).get(r3).shuffle(UNPACK_HI32).set(t[3]);
  f.get(t[0]).get(t[1]).shuffle(UNPACK_LO64).set(out[0]);
  f.get(t[0]).get(t[1]).shuffle(UNPACK_HI64).set(out[1]);
  f.get(t[2]).get(t[3]).shuffle(UNPACK_LO64).set(out[2]);
  f.get(t[2]).get(t[3]).shuffle(UNPACK_HI64).set(out[3]);
}

/** Loads one 64-byte block of each of 4 lanes, at `ptr + lane * stride`, into the message vectors. */
function loadMessage(f: FunctionBody, L: Lanes, ptr: number, stride: number, opts: Required<KernelOptions>, tmp: readonly number[], offset = 0): void {
  if (opts.loads === 'lanes') {
    for (let j = 0; j < 16; j++) {
      f.get(ptr).get(ptr).get(ptr).get(ptr).simdMem('v128.load32_zero', offset + 4 * j);
      for (let lane = 1; lane < 4; lane++) f.simdMemLane('v128.load32_lane', lane, offset + lane * stride + 4 * j);
      f.set(L.m[j]);
    }
    return;
  }
  for (let q = 0; q < 4; q++) {
    for (let lane = 0; lane < 4; lane++) f.get(ptr).simdMem('v128.load', offset + lane * stride + 16 * q).set(L.r[lane]);
    transpose(f, L.r, L.m.slice(4 * q, 4 * q + 4), tmp);
  }
}

/** v[8..11] = the first four IV words in every lane. */
function initIv(f: FunctionBody, L: Lanes): void {
  for (let i = 0; i < 4; i++) f.v128i32x4([IV[i], IV[i], IV[i], IV[i]]).set(L.v[8 + i]);
}

/** Counter vectors for lanes 0-3: (lo + base + lane) with the carry into hi, 64 bits per lane. */
function counters(f: FunctionBody, lo: number, hi: number, base: number, outLo: number, outHi: number): void {
  f.get(lo).get(base).op('i32.add').simd('i32x4.splat').v128i32x4([0, 1, 2, 3]).simd('i32x4.add').tee(outLo);
  f.get(lo).simd('i32x4.splat').simd('i32x4.lt_u'); // all ones where the low word wrapped
  f.set(outHi);
  f.get(hi).simd('i32x4.splat').get(outHi).simd('i32x4.sub').set(outHi);
}

/**
 * `chunks(n, counterLo, counterHi, flags, merges)`: hashes `n` (1 to MAX_CHUNKS) whole chunks
 * from IN_PTR, 4 at a time, the first with the 64-bit chunk counter given, then merges `merges`
 * levels of parents 4 at a time. Leaves n >> merges chaining values at CV_PTR (word-sliced).
 */
function chunksFunction(opts: Required<KernelOptions>, g: Template): FuncDef {
  const [n, ctrLo, ctrHi, flags, merges] = [0, 1, 2, 3, 4];
  const f = new FunctionBody(5);
  const sets = range(opts.interleave).map(() => ({
    L: lanes(f),
    h: range(8).map(() => f.local('v128')),
    ctrLo: f.local('v128'),
    ctrHi: f.local('v128'),
    tmp: range(4).map(() => f.local('v128')),
  }));
  const L = sets[0].L;
  const group = f.local('i32'), input = f.local('i32'), p = f.local('i32'), b = f.local('i32'), out = f.local('i32');
  const left = f.local('v128'), right = f.local('v128'), groupEnd = f.local('i32');

  /** One loop that hashes `k` groups of 4 chunks per iteration while at least k groups remain. */
  const groupLoop = (k: number) => {
    const active = sets.slice(0, k);
    f.block('block');
    f.block('loop');
    {
      f.get(group).i32(4 * k).op('i32.add').get(groupEnd).op('i32.gt_u').br('br_if', 1);
      active.forEach((set, i) => {
        if (i > 0) f.get(group).i32(4 * i).op('i32.add').set(b); // b is free until the block loop
        counters(f, ctrLo, ctrHi, i > 0 ? b : group, set.ctrLo, set.ctrHi);
        for (let j = 0; j < 8; j++) f.i32(0).simdMem('v128.load32_splat', KEY_PTR + 4 * j).set(set.h[j]);
      });
      f.get(input).set(p).i32(0).set(b);
      f.block('loop');
      {
        active.forEach((set, i) => {
          loadMessage(f, set.L, p, CHUNK_LEN, opts, set.tmp, 4 * CHUNK_LEN * i);
          for (let j = 0; j < 8; j++) f.get(set.h[j]).set(set.L.v[j]);
          initIv(f, set.L);
          f.get(set.ctrLo).set(set.L.v[12]).get(set.ctrHi).set(set.L.v[13]);
          f.v128i32x4([BLOCK_LEN, BLOCK_LEN, BLOCK_LEN, BLOCK_LEN]).set(set.L.v[14]);
        });
        // flags | CHUNK_START on block 0 | CHUNK_END on block 15
        f.get(flags).get(b).op('i32.eqz').i32(CHUNK_START).op('i32.mul').op('i32.or');
        f.get(b).i32(CHUNK_LEN / BLOCK_LEN - 1).op('i32.eq').i32(CHUNK_END).op('i32.mul').op('i32.or');
        f.simd('i32x4.splat').set(active[0].L.v[15]);
        for (const set of active.slice(1)) f.get(active[0].L.v[15]).set(set.L.v[15]);
        rounds(f, active.map((set) => set.L), g);
        for (const set of active) for (let j = 0; j < 8; j++) f.get(set.L.v[j]).get(set.L.v[j + 8]).simd('v128.xor').set(set.h[j]);
        f.get(p).i32(BLOCK_LEN).op('i32.add').set(p);
        f.get(b).i32(1).op('i32.add').tee(b).i32(CHUNK_LEN / BLOCK_LEN).op('i32.ne').br('br_if', 0);
      }
      f.op('end');
      active.forEach((set, i) => {
        for (let j = 0; j < 8; j++) f.get(out).get(set.h[j]).simdMem('v128.store', 128 * i + 16 * j);
      });
      f.get(out).i32(128 * k).op('i32.add').set(out);
      f.get(input).i32(4 * CHUNK_LEN * k).op('i32.add').set(input);
      f.get(group).i32(4 * k).op('i32.add').set(group);
      f.br('br', 0);
    }
    f.op('end');
    f.op('end');
  };

  // groupEnd: n rounded up to whole groups (lanes past n hash whatever is in memory, unused).
  f.get(n).i32(3).op('i32.add').i32(-4).op('i32.and').set(groupEnd);
  f.i32(IN_PTR).set(input).i32(CV_PTR).set(out).i32(0).set(group);
  for (let k = opts.interleave; k >= 1; k--) groupLoop(k);

  // Parent levels: each pass turns 8 CVs (two groups) into 4, in place.
  f.block('block');
  f.block('loop');
  {
    f.get(merges).op('i32.eqz').br('br_if', 1);
    f.get(merges).i32(1).op('i32.sub').set(merges);
    f.get(n).i32(1).op('i32.shr_u').set(n);
    f.i32(CV_PTR).set(input).i32(CV_PTR).set(out).i32(0).set(group);
    f.block('loop');
    {
      for (let j = 0; j < 8; j++) {
        f.get(input).simdMem('v128.load', 16 * j).set(left);
        f.get(input).simdMem('v128.load', 128 + 16 * j).set(right);
        f.get(left).get(right).shuffle(EVEN_LANES).set(L.m[j]);
        f.get(left).get(right).shuffle(ODD_LANES).set(L.m[j + 8]);
      }
      for (let j = 0; j < 8; j++) f.i32(0).simdMem('v128.load32_splat', KEY_PTR + 4 * j).set(L.v[j]);
      initIv(f, L);
      f.v128i32x4([0, 0, 0, 0]).tee(L.v[12]).set(L.v[13]);
      f.v128i32x4([BLOCK_LEN, BLOCK_LEN, BLOCK_LEN, BLOCK_LEN]).set(L.v[14]);
      f.get(flags).i32(PARENT).op('i32.or').simd('i32x4.splat').set(L.v[15]);
      rounds(f, [L], g);
      for (let j = 0; j < 8; j++) f.get(out).get(L.v[j]).get(L.v[j + 8]).simd('v128.xor').simdMem('v128.store', 16 * j);
      f.get(input).i32(256).op('i32.add').set(input);
      f.get(out).i32(128).op('i32.add').set(out);
      f.get(group).i32(4).op('i32.add').tee(group).get(n).op('i32.lt_u').br('br_if', 0);
    }
    f.op('end');
    f.br('br', 0);
  }
  f.op('end');
  f.op('end');
  return { name: 'chunks', type: { params: ['i32', 'i32', 'i32', 'i32', 'i32'], results: [] }, body: f };
}

/**
 * `xof(groups, counterLo, counterHi, blockLen, flags)`: 4 * groups root output blocks of the
 * node at ROOT_PTR, lanes = consecutive output counters from the 64-bit counter given, written
 * in stream order at XOF_PTR. `flags` includes ROOT.
 */
function xofFunction(g: Template): FuncDef {
  const [groups, ctrLo, ctrHi, blockLen, flags] = [0, 1, 2, 3, 4];
  const f = new FunctionBody(5);
  const L = lanes(f);
  const cv = range(8).map(() => f.local('v128'));
  const w = range(16).map(() => f.local('v128'));
  const tmp = range(4).map(() => f.local('v128'));
  const ctrLoV = f.local('v128'), ctrHiV = f.local('v128');
  const group = f.local('i32'), out = f.local('i32');

  // Every lane compresses the same node: the message and chaining value are splats, loaded once.
  for (let j = 0; j < 16; j++) f.i32(0).simdMem('v128.load32_splat', ROOT_PTR + 32 + 4 * j).set(L.m[j]);
  for (let j = 0; j < 8; j++) f.i32(0).simdMem('v128.load32_splat', ROOT_PTR + 4 * j).set(cv[j]);
  f.i32(XOF_PTR).set(out).i32(0).set(group);
  f.block('loop');
  {
    counters(f, ctrLo, ctrHi, group, ctrLoV, ctrHiV);
    for (let j = 0; j < 8; j++) f.get(cv[j]).set(L.v[j]);
    initIv(f, L);
    f.get(ctrLoV).set(L.v[12]).get(ctrHiV).set(L.v[13]);
    f.get(blockLen).simd('i32x4.splat').set(L.v[14]);
    f.get(flags).simd('i32x4.splat').set(L.v[15]);
    rounds(f, [L], g);
    for (let j = 0; j < 8; j++) {
      f.get(L.v[j]).get(L.v[j + 8]).simd('v128.xor').set(w[j]);
      f.get(L.v[j + 8]).get(cv[j]).simd('v128.xor').set(w[j + 8]);
    }
    // Word-sliced to stream order: lane l's block is the 64 bytes at out + 64 * l.
    for (let q = 0; q < 4; q++) {
      transpose(f, w.slice(4 * q, 4 * q + 4), L.r, tmp);
      for (let lane = 0; lane < 4; lane++) f.get(out).get(L.r[lane]).simdMem('v128.store', 64 * lane + 16 * q);
    }
    f.get(out).i32(4 * BLOCK_LEN).op('i32.add').set(out);
    f.get(group).i32(4).op('i32.add').tee(group).get(groups).i32(2).op('i32.shl').op('i32.lt_u').br('br_if', 0);
  }
  f.op('end');
  return { name: 'xof', type: { params: ['i32', 'i32', 'i32', 'i32', 'i32'], results: [] }, body: f };
}

/**
 * `many(count, flags, wide)`: SIMD across messages. Runs `count` jobs from the job table, 8 lanes
 * at a time (two interleaved groups of 4), one job per lane; a lane that finishes its job takes
 * the next, so mixed lengths keep every lane busy until the table runs out. A job is one node of
 * a message's tree: a chunk of 1-16 blocks, or a parent (one block: two adjacent chaining values).
 * The words of job `i` at MANY_JOBS + 32i are its block address, its block count (>= 1), its
 * counter (below 2^32; 0 for parents), `lastLen | extraFlags << 8` (the last block's length, and
 * CHUNK_END or PARENT, with ROOT for the root node), and the address of its 8 output words: its
 * chaining value, or for a root output words 0-7, with words 8-15 MANY_HI_DELTA bytes later when
 * `wide` is 1. `flags` holds the mode bits; the first block of a chunk gets CHUNK_START.
 *
 * Counter, block length and flags are per-lane vectors in memory (LANE_CTR...), rewritten by
 * scalar code per lane between compressions; chaining values go through MANY_H, so starting a
 * job is 8 word stores of the key. Both are a few dozen scalar instructions per lane per block
 * against ~140 SIMD instructions per lane per compression.
 */
function manyFunction(g: Template): FuncDef {
  const [count, flags, wide] = [0, 1, 2];
  const f = new FunctionBody(3);
  const sets = range(2).map(() => ({ L: lanes(f), tmp: range(4).map(() => f.local('v128')) }));
  const next = f.local('i32'), active = f.local('i32'), left = f.local('i32'), start = f.local('i32'), job = f.local('i32'), out = f.local('i32'), extra = f.local('i32');
  const load = (addr: number) => f.i32(0).mem('i32.load', addr);
  /** Stores the i32 that `value` pushes at the fixed address `addr`. */
  const store = (addr: number, value: () => void) => {
    f.i32(0);
    value();
    f.mem('i32.store', addr);
  };

  /** Per lane, after each compression: advance within the job, or emit it and take the next. */
  const advance = (l: number) => {
    const word = 128 * (l >> 2) + 4 * (l & 3); // lane l of word 0 of its group, in MANY_H / MANY_W2
    load(LANE_LEFT + 4 * l).i32(1).op('i32.sub').tee(left).op('i32.eqz');
    f.block('if');
    {
      // The job is done: its outputs, then the next job or idleness.
      load(LANE_OUT + 4 * l).set(out);
      for (let j = 0; j < 8; j++) f.get(out).i32(0).mem('i32.load', MANY_H + word + 16 * j).mem('i32.store', 4 * j);
      // Words 8-15 only for a root, and only when the output is longer than 32 bytes.
      load(LANE_FINAL + 4 * l).i32(Math.log2(ROOT)).op('i32.shr_u').get(wide).op('i32.and');
      f.block('if');
      for (let j = 0; j < 8; j++) f.get(out).i32(0).mem('i32.load', MANY_W2 + word + 16 * j).mem('i32.store', MANY_HI_DELTA + 4 * j);
      f.op('end');
      f.get(next).get(count).op('i32.lt_u');
      f.block('if');
      {
        f.get(next).i32(5).op('i32.shl').set(job);
        store(LANE_PTR + 4 * l, () => f.get(job).mem('i32.load', MANY_JOBS));
        f.get(job).mem('i32.load', MANY_JOBS + 4).set(left);
        store(LANE_LEFT + 4 * l, () => f.get(left));
        store(LANE_CTR + 4 * l, () => f.get(job).mem('i32.load', MANY_JOBS + 8));
        f.get(job).mem('i32.load', MANY_JOBS + 12).set(extra);
        store(LANE_LAST + 4 * l, () => f.get(extra).i32(0xff).op('i32.and'));
        store(LANE_FINAL + 4 * l, () => f.get(extra).i32(8).op('i32.shr_u').get(flags).op('i32.or'));
        store(LANE_OUT + 4 * l, () => f.get(job).mem('i32.load', MANY_JOBS + 16));
        for (let j = 0; j < 8; j++) store(MANY_H + word + 16 * j, () => load(KEY_PTR + 4 * j));
        // CHUNK_START for a chunk, nothing for a parent.
        f.i32(CHUNK_START).get(extra).i32(8 + Math.log2(PARENT)).op('i32.shr_u').i32(1).op('i32.and').op('i32.xor').set(start);
        f.get(next).i32(1).op('i32.add').set(next);
      }
      f.op('else');
      {
        // Idle until the call ends: a valid address to load from, a count that never runs out.
        store(LANE_PTR + 4 * l, () => f.i32(MANY_IN));
        f.i32(0x40000000).set(left);
        store(LANE_LEFT + 4 * l, () => f.get(left));
        store(LANE_OUT + 4 * l, () => f.i32(MANY_DUMMY));
        store(LANE_FINAL + 4 * l, () => f.i32(0));
        f.i32(0).set(start);
        f.get(active).i32(1).op('i32.sub').set(active);
      }
      f.op('end');
    }
    f.op('else');
    {
      store(LANE_LEFT + 4 * l, () => f.get(left));
      store(LANE_PTR + 4 * l, () => load(LANE_PTR + 4 * l).i32(BLOCK_LEN).op('i32.add'));
      f.i32(0).set(start);
    }
    f.op('end');
    // The last block: its own length and CHUNK_END (and ROOT); the first: CHUNK_START.
    store(LANE_FLAGS + 4 * l, () => load(LANE_FINAL + 4 * l).get(flags).get(left).i32(1).op('i32.eq').op('select').get(start).op('i32.or'));
    store(LANE_BLEN + 4 * l, () => load(LANE_LAST + 4 * l).i32(BLOCK_LEN).get(left).i32(1).op('i32.eq').op('select'));
  };

  for (let l = 0; l < MANY_LANES; l++) {
    store(LANE_LEFT + 4 * l, () => f.i32(1));
    store(LANE_OUT + 4 * l, () => f.i32(MANY_DUMMY));
    store(LANE_FINAL + 4 * l, () => f.i32(0));
  }
  f.i32(0).set(next).i32(MANY_LANES).set(active);
  f.block('block');
  f.block('loop');
  {
    for (let l = 0; l < MANY_LANES; l++) advance(l);
    f.get(active).op('i32.eqz').br('br_if', 1);
    sets.forEach(({ L, tmp }, grp) => {
      // Message words: each lane loads its own block, then 4x4 transposes as in `chunks`.
      for (let q = 0; q < 4; q++) {
        for (let lane = 0; lane < 4; lane++) load(LANE_PTR + 4 * (4 * grp + lane)).simdMem('v128.load', 16 * q).set(L.r[lane]);
        transpose(f, L.r, L.m.slice(4 * q, 4 * q + 4), tmp);
      }
      for (let j = 0; j < 8; j++) f.i32(0).simdMem('v128.load', MANY_H + 128 * grp + 16 * j).set(L.v[j]);
      initIv(f, L);
      f.i32(0).simdMem('v128.load', LANE_CTR + 16 * grp).set(L.v[12]);
      f.v128i32x4([0, 0, 0, 0]).set(L.v[13]);
      f.i32(0).simdMem('v128.load', LANE_BLEN + 16 * grp).set(L.v[14]);
      f.i32(0).simdMem('v128.load', LANE_FLAGS + 16 * grp).set(L.v[15]);
    });
    rounds(f, sets.map((s) => s.L), g);
    sets.forEach(({ L }, grp) => {
      for (let j = 0; j < 8; j++) {
        const h = MANY_H + 128 * grp + 16 * j;
        f.i32(0).get(L.v[j + 8]).i32(0).simdMem('v128.load', h).simd('v128.xor').simdMem('v128.store', MANY_W2 + 128 * grp + 16 * j);
        f.i32(0).get(L.v[j]).get(L.v[j + 8]).simd('v128.xor').simdMem('v128.store', h);
      }
    });
    f.br('br', 0);
  }
  f.op('end');
  f.op('end');
  return { name: 'many', type: { params: ['i32', 'i32', 'i32'], results: [] }, body: f };
}

/** The scalar G: the same mixing on i32 locals, with the engine's native rotate (no scratch slot). */
function gScalarTemplate(): Template {
  const [a, b, c, d, mx, my] = range(6);
  const f = new FunctionBody(0);
  const mix = (x: number, y: number, m: number, z: number, n: number, w: number, k: number) => {
    f.get(x).get(y).op('i32.add').get(m).op('i32.add').tee(x);
    f.get(z).op('i32.xor').i32(n).op('i32.rotr').tee(z);
    f.get(w).op('i32.add').tee(w);
    f.get(y).op('i32.xor').i32(k).op('i32.rotr').set(y);
  };
  mix(a, b, mx, d, 16, c, 12);
  mix(a, b, my, d, 8, c, 7);
  return f.template();
}

/**
 * `one(len, flags)`: the root output words 0-7 of a whole message of `len` (0-1024) bytes, one
 * chunk, on scalar i32 locals: the single-chunk path of `blake3()` for engines whose JS compress
 * is slower than their WASM (SpiderMonkey, JavaScriptCore). The input is at IN_PTR, zero-padded
 * to whole blocks (at least one); the key at KEY_PTR; the 8 words go to XOF_PTR.
 */
function oneFunction(): FuncDef {
  const [len, flags] = [0, 1];
  const f = new FunctionBody(2);
  const g = gScalarTemplate();
  const h = range(8).map(() => f.local('i32'));
  const v = range(16).map(() => f.local('i32'));
  const m = range(16).map(() => f.local('i32'));
  const ptr = f.local('i32'), end = f.local('i32'), blockFlags = f.local('i32');
  for (let j = 0; j < 8; j++) f.i32(0).mem('i32.load', KEY_PTR + 4 * j).set(h[j]);
  // end = IN_PTR + 64 * (blocks - 1): the address of the last block.
  f.i32(IN_PTR).get(len).i32(1).op('i32.sub').i32(6).op('i32.shr_u').i32(6).op('i32.shl').op('i32.add');
  f.i32(IN_PTR).get(len).op('select').set(end);
  f.i32(IN_PTR).set(ptr);
  f.get(flags).i32(CHUNK_START).op('i32.or').set(blockFlags);
  f.block('loop');
  {
    for (let j = 0; j < 16; j++) f.get(ptr).mem('i32.load', 4 * j).set(m[j]);
    for (let j = 0; j < 8; j++) f.get(h[j]).set(v[j]);
    for (let j = 0; j < 4; j++) f.i32(IV[j]).set(v[8 + j]);
    f.i32(0).set(v[12]).i32(0).set(v[13]);
    // The last block: its own length, CHUNK_END and ROOT.
    f.get(len).i32(BLOCK_LEN - 1).op('i32.and').i32(BLOCK_LEN).get(len).i32(BLOCK_LEN - 1).op('i32.and').op('select');
    f.i32(0).get(len).op('select'); // the empty message: a block length of 0
    f.i32(BLOCK_LEN).get(ptr).get(end).op('i32.eq').op('select').set(v[14]);
    f.get(blockFlags).i32(CHUNK_END | ROOT).i32(0).get(ptr).get(end).op('i32.eq').op('select').op('i32.or').set(v[15]);
    rounds(f, [{ v, m }], g);
    for (let j = 0; j < 8; j++) f.get(v[j]).get(v[j + 8]).op('i32.xor').set(h[j]);
    f.get(flags).set(blockFlags);
    f.get(ptr).i32(BLOCK_LEN).op('i32.add').tee(ptr).get(end).op('i32.le_u').br('br_if', 0);
  }
  f.op('end');
  for (let j = 0; j < 8; j++) f.i32(0).get(h[j]).mem('i32.store', XOF_PTR + 4 * j);
  return { name: 'one', type: { params: ['i32', 'i32'], results: [] }, body: f };
}

/** The kernel module's bytes; deterministic for given options. */
export function kernelModule(options: KernelOptions = {}): Uint8Array<ArrayBuffer> {
  // Defaults measured (docs/wasm-kernel.md): 16-byte loads + transposes beat one 4-byte load per
  // lane (V8 1 MiB: 2054 vs 2010 MB/s; JSC 1567 vs 1528); 2 interleaved groups beat 1 in V8
  // (1 MiB: 2006-2084 vs 1846-1977 MB/s) and tie in SpiderMonkey and JSC.
  const opts: Required<KernelOptions> = { loads: options.loads ?? 'transpose', interleave: options.interleave ?? 2 };
  const g = gTemplate();
  return encodeModule([chunksFunction(opts, g), xofFunction(g), manyFunction(g), oneFunction()], { name: 'memory', pages: PAGES });
}
