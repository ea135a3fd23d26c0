// `many`: SIMD across messages, and the writer of the job table it reads.
import { BLOCK_LEN, CHUNK_END, CHUNK_START, PARENT, ROOT } from '../_constants.js';
import type { ManyJobs } from '../_kernels.js';
import { initIv, lanes, rounds, transpose } from './_lanes.js';
import { KEY_PTR, type KernelExports } from './_layout.js';
import {
  LANE_BLEN, LANE_CTR, LANE_FINAL, LANE_FLAGS, LANE_LAST, LANE_LEFT, LANE_OUT, LANE_PTR, MANY_CV, MANY_CV_SLOTS, MANY_DUMMY, MANY_H,
  MANY_HI_DELTA, MANY_IN, MANY_IN_LEN, MANY_JOB_WORDS, MANY_JOBS, MANY_MAX_JOBS, MANY_MAX_MESSAGES, MANY_OUT, MANY_W2,
} from './_many-layout.js';
import { func, type FuncDef, type Template } from './_module.js';
import { BLOCK, BR, BR_IF, ELSE, END, I32_ADD, I32_AND, I32_EQ, I32_EQZ, I32_LOAD, I32_LT_U, I32_OR, I32_SHL, I32_SHR_U, I32_STORE, I32_SUB, I32_XOR, IF, LOOP, SELECT, V128_LOAD, V128_STORE, V128_XOR, TYPE_I32, TYPE_V128 } from './_opcodes.js';

/**
 * `many(count, flags, wide)`: SIMD across messages. Runs `count` jobs from the job table, 4 lanes
 * at a time (one group: 1.5x faster than two interleaved on the AMD EPYC, kernel alone, as for
 * `chunks`; the layout has room for two), one job per lane; a lane that finishes its job takes
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
export function manyFunction(g: Template): FuncDef {
  return func('many', 3, (f, [count, flags, wide]) => {
    const L = lanes(f), tmp = f.locals(TYPE_V128, 4);
    const next = f.local(TYPE_I32), active = f.local(TYPE_I32), left = f.local(TYPE_I32), start = f.local(TYPE_I32), job = f.local(TYPE_I32), out = f.local(TYPE_I32), extra = f.local(TYPE_I32);
    const load = (addr: number) => f.i32(0).mem(I32_LOAD, addr);
    /** Stores the i32 that `value` pushes at the fixed address `addr`. */
    const store = (addr: number, value: () => void) => {
      f.i32(0);
      value();
      f.mem(I32_STORE, addr);
    };

    /** Per lane, after each compression: advance within the job, or emit it and take the next. */
    const advance = (l: number) => {
      const word = 4 * l; // lane l of word 0, in MANY_H / MANY_W2
      load(LANE_LEFT + 4 * l).i32(1).op(I32_SUB).tee(left).op(I32_EQZ);
      f.block(IF);
      {
        // The job is done: its outputs, then the next job or idleness.
        load(LANE_OUT + 4 * l).set(out);
        for (let j = 0; j < 8; j++) f.get(out).i32(0).mem(I32_LOAD, MANY_H + word + 16 * j).mem(I32_STORE, 4 * j);
        // Words 8-15 only for a root, and only when the output is longer than 32 bytes.
        load(LANE_FINAL + 4 * l).i32(Math.log2(ROOT)).op(I32_SHR_U).get(wide).op(I32_AND);
        f.block(IF);
        for (let j = 0; j < 8; j++) f.get(out).i32(0).mem(I32_LOAD, MANY_W2 + word + 16 * j).mem(I32_STORE, MANY_HI_DELTA + 4 * j);
        f.op(END);
        f.get(next).get(count).op(I32_LT_U);
        f.block(IF);
        {
          f.get(next).i32(5).op(I32_SHL).set(job);
          store(LANE_PTR + 4 * l, () => f.get(job).mem(I32_LOAD, MANY_JOBS));
          f.get(job).mem(I32_LOAD, MANY_JOBS + 4).set(left);
          store(LANE_LEFT + 4 * l, () => f.get(left));
          store(LANE_CTR + 4 * l, () => f.get(job).mem(I32_LOAD, MANY_JOBS + 8));
          f.get(job).mem(I32_LOAD, MANY_JOBS + 12).set(extra);
          store(LANE_LAST + 4 * l, () => f.get(extra).i32(0xff).op(I32_AND));
          store(LANE_FINAL + 4 * l, () => f.get(extra).i32(8).op(I32_SHR_U).get(flags).op(I32_OR));
          store(LANE_OUT + 4 * l, () => f.get(job).mem(I32_LOAD, MANY_JOBS + 16));
          for (let j = 0; j < 8; j++) store(MANY_H + word + 16 * j, () => load(KEY_PTR + 4 * j));
          // CHUNK_START for a chunk, nothing for a parent.
          f.i32(CHUNK_START).get(extra).i32(8 + Math.log2(PARENT)).op(I32_SHR_U).i32(1).op(I32_AND).op(I32_XOR).set(start);
          f.get(next).i32(1).op(I32_ADD).set(next);
        }
        f.op(ELSE);
        {
          // Idle until the call ends: a valid address to load from, a count that never runs out.
          store(LANE_PTR + 4 * l, () => f.i32(MANY_IN));
          f.i32(0x40000000).set(left);
          store(LANE_LEFT + 4 * l, () => f.get(left));
          store(LANE_OUT + 4 * l, () => f.i32(MANY_DUMMY));
          store(LANE_FINAL + 4 * l, () => f.i32(0));
          f.i32(0).set(start);
          f.get(active).i32(1).op(I32_SUB).set(active);
        }
        f.op(END);
      }
      f.op(ELSE);
      {
        store(LANE_LEFT + 4 * l, () => f.get(left));
        store(LANE_PTR + 4 * l, () => load(LANE_PTR + 4 * l).i32(BLOCK_LEN).op(I32_ADD));
        f.i32(0).set(start);
      }
      f.op(END);
      // The last block: its own length and CHUNK_END (and ROOT); the first: CHUNK_START.
      store(LANE_FLAGS + 4 * l, () => load(LANE_FINAL + 4 * l).get(flags).get(left).i32(1).op(I32_EQ).op(SELECT).get(start).op(I32_OR));
      store(LANE_BLEN + 4 * l, () => load(LANE_LAST + 4 * l).i32(BLOCK_LEN).get(left).i32(1).op(I32_EQ).op(SELECT));
    };

    for (let l = 0; l < 4; l++) {
      store(LANE_LEFT + 4 * l, () => f.i32(1));
      store(LANE_OUT + 4 * l, () => f.i32(MANY_DUMMY));
      store(LANE_FINAL + 4 * l, () => f.i32(0));
    }
    f.i32(0).set(next).i32(4).set(active);
    f.block(BLOCK);
    f.block(LOOP);
    {
      for (let l = 0; l < 4; l++) advance(l);
      f.get(active).op(I32_EQZ).br(BR_IF, 1);
      // Message words: each lane loads its own block, then 4x4 transposes as in `chunks`.
      for (let q = 0; q < 4; q++) {
        for (let lane = 0; lane < 4; lane++) load(LANE_PTR + 4 * lane).simdMem(V128_LOAD, 16 * q).set(L.r[lane]);
        transpose(f, L.r, L.m.slice(4 * q, 4 * q + 4), tmp);
      }
      for (let j = 0; j < 8; j++) f.i32(0).simdMem(V128_LOAD, MANY_H + 16 * j).set(L.v[j]);
      initIv(f, L);
      f.i32(0).simdMem(V128_LOAD, LANE_CTR).set(L.v[12]);
      f.v128i32x4([0, 0, 0, 0]).set(L.v[13]);
      f.i32(0).simdMem(V128_LOAD, LANE_BLEN).set(L.v[14]);
      f.i32(0).simdMem(V128_LOAD, LANE_FLAGS).set(L.v[15]);
      rounds(f, [L], g);
      for (let j = 0; j < 8; j++) {
        const h = MANY_H + 16 * j;
        f.i32(0).get(L.v[j + 8]).i32(0).simdMem(V128_LOAD, h).simd(V128_XOR).simdMem(V128_STORE, MANY_W2 + 16 * j);
        f.i32(0).get(L.v[j]).get(L.v[j + 8]).simd(V128_XOR).simdMem(V128_STORE, h);
      }
      f.br(BR, 0);
    }
    f.op(END);
    f.op(END);
  });
}

const PARENT_JOB = BLOCK_LEN | (PARENT << 8);

/**
 * The job-table writer of `many`: jobs go into WASM memory at MANY_JOBS in the layout `many`
 * reads, places become addresses, and a run is one call.
 */
export function wasmManyJobs(instance: WebAssembly.Instance): ManyJobs {
  const { memory, many } = instance.exports as unknown as KernelExports;
  const mem8 = new Uint8Array(memory.buffer);
  const mem32 = new Uint32Array(memory.buffer);
  let jobs = 0, flags = 0, wide = 0;
  /** Appends a job: the words `many` reads (see manyFunction). */
  const job = (addr: number, blocks: number, counter: number, last: number, outAddr: number) => {
    const w = (MANY_JOBS >> 2) + MANY_JOB_WORDS * jobs++;
    mem32[w] = addr;
    mem32[w + 1] = blocks;
    mem32[w + 2] = counter;
    mem32[w + 3] = last;
    mem32[w + 4] = outAddr;
  };
  const outputInto = (slot: number, n: number, out: Uint8Array, outPos: number) => {
    const o = MANY_OUT + 32 * slot;
    out.set(mem8.subarray(o, o + Math.min(n, 32)), outPos);
    if (n > 32) out.set(mem8.subarray(o + MANY_HI_DELTA, o + MANY_HI_DELTA + n - 32), outPos + 32);
  };
  return {
    inputLen: MANY_IN_LEN,
    maxJobs: MANY_MAX_JOBS,
    maxMessages: MANY_MAX_MESSAGES,
    cvSlots: MANY_CV_SLOTS,
    input(bytes, at, padded) {
      const start = MANY_IN + at;
      mem8.set(bytes, start);
      for (let b = start + bytes.length; b < start + padded; b++) mem8[b] = 0;
    },
    chunk(at, len, counter, root, to) {
      const blocks = len === 0 ? 1 : (len + BLOCK_LEN - 1) >> 6;
      const last = (len - (blocks - 1) * BLOCK_LEN) | ((root ? CHUNK_END | ROOT : CHUNK_END) << 8);
      job(MANY_IN + at, blocks, counter, last, root ? MANY_OUT + 32 * to : MANY_CV + 32 * to);
    },
    parent: (left, root, to) => job(MANY_CV + 32 * left, 1, 0, root ? PARENT_JOB | (ROOT << 8) : PARENT_JOB, root ? MANY_OUT + 32 * to : MANY_CV + 32 * to),
    inputParent: (at, to) => job(MANY_IN + at, 1, 0, PARENT_JOB, MANY_OUT + 32 * to),
    moveCv: (from, to) => void mem32.copyWithin((MANY_CV >> 2) + 8 * to, (MANY_CV >> 2) + 8 * from, (MANY_CV >> 2) + 8 * from + 8),
    start(key, f, w) {
      mem32.set(key, KEY_PTR >> 2);
      (flags = f), (wide = w ? 1 : 0);
    },
    run() {
      many(jobs, flags, wide);
      jobs = 0;
    },
    output(slot, n) {
      if (n <= 32) return mem8.slice(MANY_OUT + 32 * slot, MANY_OUT + 32 * slot + n);
      const d = new Uint8Array(n);
      outputInto(slot, n, d, 0);
      return d;
    },
    outputInto,
    outputs: (count, out, outPos) => out.set(mem8.subarray(MANY_OUT, MANY_OUT + 32 * count), outPos),
  };
}
