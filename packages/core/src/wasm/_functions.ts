// The kernel's functions other than `many`: `chunks` (whole chunks and their parents, 4 lanes
// of chunks side by side), `xof` (root output blocks, 4 counters side by side) and `one` (a
// single-chunk message on scalar locals).
import { BLOCK_LEN, CHUNK_END, CHUNK_LEN, CHUNK_START, IV, PARENT, ROOT } from '../_constants.js';
import { counters, initIv, lanes, loadMessage, rounds, transpose, words } from './_lanes.js';
import { CV_PTR, IN_PTR, KEY_PTR, ROOT_PTR, XOF_PTR } from './_layout.js';
import { func, type FuncDef, type Template } from './_module.js';
import { BLOCK, BR, BR_IF, END, I32X4_SPLAT, I32_ADD, I32_AND, I32_EQ, I32_EQZ, I32_GT_U, I32_LE_U, I32_LOAD, I32_LT_U, I32_MUL, I32_NE, I32_OR, I32_SHL, I32_SHR_U, I32_STORE, I32_SUB, I32_XOR, LOOP, SELECT, V128_LOAD, V128_LOAD32_SPLAT, V128_STORE, V128_XOR, TYPE_I32, TYPE_V128 } from './_opcodes.js';

// Parents from two word-sliced CV groups: left children are the even lanes, right the odd.
const EVEN_LANES = words(0, 2, 4, 6);
const ODD_LANES = words(1, 3, 5, 7);

/**
 * `chunks(n, counterLo, counterHi, flags, merges)`: hashes `n` (1 to MAX_CHUNKS) whole chunks
 * from IN_PTR, 4 at a time, the first with the 64-bit chunk counter given, then merges `merges`
 * levels of parents 4 at a time. Leaves n >> merges chaining values at CV_PTR (word-sliced).
 */
export function chunksFunction(g: Template | readonly Template[]): FuncDef {
  return func('chunks', 5, (f, [n, ctrLo, ctrHi, flags, merges]) => {
    // One group of 4 chunks per loop step: two interleaved groups ran 1.2-1.9x slower in every engine (AMD EPYC).
    const L = lanes(f), h = f.locals(TYPE_V128, 8), cLo = f.local(TYPE_V128), cHi = f.local(TYPE_V128), tmp = f.locals(TYPE_V128, 4);
    const group = f.local(TYPE_I32), input = f.local(TYPE_I32), p = f.local(TYPE_I32), b = f.local(TYPE_I32), out = f.local(TYPE_I32);
    const left = f.local(TYPE_V128), right = f.local(TYPE_V128), groupEnd = f.local(TYPE_I32);
    // groupEnd: n rounded up to whole groups (lanes past n hash whatever is in memory, unused).
    f.get(n).i32(3).op(I32_ADD).i32(-4).op(I32_AND).set(groupEnd);
    f.i32(IN_PTR).set(input).i32(CV_PTR).set(out).i32(0).set(group);
    f.block(BLOCK);
    f.block(LOOP);
    {
      f.get(group).i32(4).op(I32_ADD).get(groupEnd).op(I32_GT_U).br(BR_IF, 1);
      counters(f, ctrLo, ctrHi, group, cLo, cHi);
      for (let j = 0; j < 8; j++) f.i32(0).simdMem(V128_LOAD32_SPLAT, KEY_PTR + 4 * j).set(h[j]);
      f.get(input).set(p).i32(0).set(b);
      f.block(LOOP);
      {
        loadMessage(f, L, p, CHUNK_LEN, tmp);
        for (let j = 0; j < 8; j++) f.get(h[j]).set(L.v[j]);
        initIv(f, L);
        f.get(cLo).set(L.v[12]).get(cHi).set(L.v[13]);
        f.v128i32x4([BLOCK_LEN, BLOCK_LEN, BLOCK_LEN, BLOCK_LEN]).set(L.v[14]);
        // flags | CHUNK_START on block 0 | CHUNK_END on block 15
        f.get(flags).get(b).op(I32_EQZ).i32(CHUNK_START).op(I32_MUL).op(I32_OR);
        f.get(b).i32(CHUNK_LEN / BLOCK_LEN - 1).op(I32_EQ).i32(CHUNK_END).op(I32_MUL).op(I32_OR);
        f.simd(I32X4_SPLAT).set(L.v[15]);
        rounds(f, [L], g);
        for (let j = 0; j < 8; j++) f.get(L.v[j]).get(L.v[j + 8]).simd(V128_XOR).set(h[j]);
        f.get(p).i32(BLOCK_LEN).op(I32_ADD).set(p);
        f.get(b).i32(1).op(I32_ADD).tee(b).i32(CHUNK_LEN / BLOCK_LEN).op(I32_NE).br(BR_IF, 0);
      }
      f.op(END);
      for (let j = 0; j < 8; j++) f.get(out).get(h[j]).simdMem(V128_STORE, 16 * j);
      f.get(out).i32(128).op(I32_ADD).set(out);
      f.get(input).i32(4 * CHUNK_LEN).op(I32_ADD).set(input);
      f.get(group).i32(4).op(I32_ADD).set(group);
      f.br(BR, 0);
    }
    f.op(END);
    f.op(END);

    // Parent levels: each pass turns 8 CVs (two groups) into 4, in place.
    f.block(BLOCK);
    f.block(LOOP);
    {
      f.get(merges).op(I32_EQZ).br(BR_IF, 1);
      f.get(merges).i32(1).op(I32_SUB).set(merges);
      f.get(n).i32(1).op(I32_SHR_U).set(n);
      f.i32(CV_PTR).set(input).i32(CV_PTR).set(out).i32(0).set(group);
      f.block(LOOP);
      {
        for (let j = 0; j < 8; j++) {
          f.get(input).simdMem(V128_LOAD, 16 * j).set(left);
          f.get(input).simdMem(V128_LOAD, 128 + 16 * j).set(right);
          f.get(left).get(right).shuffle(EVEN_LANES).set(L.m[j]);
          f.get(left).get(right).shuffle(ODD_LANES).set(L.m[j + 8]);
        }
        for (let j = 0; j < 8; j++) f.i32(0).simdMem(V128_LOAD32_SPLAT, KEY_PTR + 4 * j).set(L.v[j]);
        initIv(f, L);
        f.v128i32x4([0, 0, 0, 0]).tee(L.v[12]).set(L.v[13]);
        f.v128i32x4([BLOCK_LEN, BLOCK_LEN, BLOCK_LEN, BLOCK_LEN]).set(L.v[14]);
        f.get(flags).i32(PARENT).op(I32_OR).simd(I32X4_SPLAT).set(L.v[15]);
        rounds(f, [L], g);
        for (let j = 0; j < 8; j++) f.get(out).get(L.v[j]).get(L.v[j + 8]).simd(V128_XOR).simdMem(V128_STORE, 16 * j);
        f.get(input).i32(256).op(I32_ADD).set(input);
        f.get(out).i32(128).op(I32_ADD).set(out);
        f.get(group).i32(4).op(I32_ADD).tee(group).get(n).op(I32_LT_U).br(BR_IF, 0);
      }
      f.op(END);
      f.br(BR, 0);
    }
    f.op(END);
    f.op(END);
  });
}

/**
 * `xof(groups, counterLo, counterHi, blockLen, flags)`: 4 * groups root output blocks of the
 * node at ROOT_PTR, lanes = consecutive output counters from the 64-bit counter given, written
 * in stream order at XOF_PTR. `flags` includes ROOT.
 */
export function xofFunction(g: Template): FuncDef {
  return func('xof', 5, (f, [groups, ctrLo, ctrHi, blockLen, flags]) => {
    const L = lanes(f);
    const cv = f.locals(TYPE_V128, 8);
    const w = f.locals(TYPE_V128, 16);
    const tmp = f.locals(TYPE_V128, 4);
    const ctrLoV = f.local(TYPE_V128), ctrHiV = f.local(TYPE_V128);
    const group = f.local(TYPE_I32), out = f.local(TYPE_I32);

    // Every lane compresses the same node: the message and chaining value are splats, loaded once.
    for (let j = 0; j < 16; j++) f.i32(0).simdMem(V128_LOAD32_SPLAT, ROOT_PTR + 32 + 4 * j).set(L.m[j]);
    for (let j = 0; j < 8; j++) f.i32(0).simdMem(V128_LOAD32_SPLAT, ROOT_PTR + 4 * j).set(cv[j]);
    f.i32(XOF_PTR).set(out).i32(0).set(group);
    f.block(LOOP);
    {
      counters(f, ctrLo, ctrHi, group, ctrLoV, ctrHiV);
      for (let j = 0; j < 8; j++) f.get(cv[j]).set(L.v[j]);
      initIv(f, L);
      f.get(ctrLoV).set(L.v[12]).get(ctrHiV).set(L.v[13]);
      f.get(blockLen).simd(I32X4_SPLAT).set(L.v[14]);
      f.get(flags).simd(I32X4_SPLAT).set(L.v[15]);
      rounds(f, [L], g);
      for (let j = 0; j < 8; j++) {
        f.get(L.v[j]).get(L.v[j + 8]).simd(V128_XOR).set(w[j]);
        f.get(L.v[j + 8]).get(cv[j]).simd(V128_XOR).set(w[j + 8]);
      }
      // Word-sliced to stream order: lane l's block is the 64 bytes at out + 64 * l.
      for (let q = 0; q < 4; q++) {
        transpose(f, w.slice(4 * q, 4 * q + 4), L.r, tmp);
        for (let lane = 0; lane < 4; lane++) f.get(out).get(L.r[lane]).simdMem(V128_STORE, 64 * lane + 16 * q);
      }
      f.get(out).i32(4 * BLOCK_LEN).op(I32_ADD).set(out);
      f.get(group).i32(4).op(I32_ADD).tee(group).get(groups).i32(2).op(I32_SHL).op(I32_LT_U).br(BR_IF, 0);
    }
    f.op(END);
  });
}

/**
 * `one(len, flags)`: the root output words 0-7 of a whole message of `len` (0-1024) bytes, one
 * chunk, on scalar i32 locals: the single-chunk path of `blake3()` for engines whose JS compress
 * is slower than their WASM (SpiderMonkey, JavaScriptCore). The input is at IN_PTR, zero-padded
 * to whole blocks (at least one); the key at KEY_PTR; the 8 words go to XOF_PTR.
 */
export function oneFunction(g: Template): FuncDef {
  return func('one', 2, (f, [len, flags]) => {
    const h = f.locals(TYPE_I32, 8);
    const v = f.locals(TYPE_I32, 16);
    const m = f.locals(TYPE_I32, 16);
    const ptr = f.local(TYPE_I32), end = f.local(TYPE_I32), blockFlags = f.local(TYPE_I32);
    for (let j = 0; j < 8; j++) f.i32(0).mem(I32_LOAD, KEY_PTR + 4 * j).set(h[j]);
    // end = IN_PTR + 64 * (blocks - 1): the address of the last block.
    f.i32(IN_PTR).get(len).i32(1).op(I32_SUB).i32(6).op(I32_SHR_U).i32(6).op(I32_SHL).op(I32_ADD);
    f.i32(IN_PTR).get(len).op(SELECT).set(end);
    f.i32(IN_PTR).set(ptr);
    f.get(flags).i32(CHUNK_START).op(I32_OR).set(blockFlags);
    f.block(LOOP);
    {
      for (let j = 0; j < 16; j++) f.get(ptr).mem(I32_LOAD, 4 * j).set(m[j]);
      for (let j = 0; j < 8; j++) f.get(h[j]).set(v[j]);
      for (let j = 0; j < 4; j++) f.i32(IV[j]).set(v[8 + j]);
      f.i32(0).set(v[12]).i32(0).set(v[13]);
      // The last block: its own length, CHUNK_END and ROOT.
      f.get(len).i32(BLOCK_LEN - 1).op(I32_AND).i32(BLOCK_LEN).get(len).i32(BLOCK_LEN - 1).op(I32_AND).op(SELECT);
      f.i32(0).get(len).op(SELECT); // the empty message: a block length of 0
      f.i32(BLOCK_LEN).get(ptr).get(end).op(I32_EQ).op(SELECT).set(v[14]);
      f.get(blockFlags).i32(CHUNK_END | ROOT).i32(0).get(ptr).get(end).op(I32_EQ).op(SELECT).op(I32_OR).set(v[15]);
      rounds(f, [{ v, m }], g);
      for (let j = 0; j < 8; j++) f.get(v[j]).get(v[j + 8]).op(I32_XOR).set(h[j]);
      f.get(flags).set(blockFlags);
      f.get(ptr).i32(BLOCK_LEN).op(I32_ADD).tee(ptr).get(end).op(I32_LE_U).br(BR_IF, 0);
    }
    f.op(END);
    for (let j = 0; j < 8; j++) f.i32(0).get(h[j]).mem(I32_STORE, XOF_PTR + 4 * j);
  });
}
