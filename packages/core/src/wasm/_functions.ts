// The kernel's functions other than `many`: `chunks` (whole chunks and their parents, 4 lanes
// of chunks side by side), `xof` (root output blocks, 4 counters side by side) and `one` (a
// single-chunk message on scalar locals).
import { BLOCK_LEN, CHUNK_END, CHUNK_LEN, CHUNK_START, IV, PARENT, ROOT } from '../_constants.js';
import { counters, initIv, lanes, loadMessage, range, rounds, transpose, words, type KernelOptions } from './_lanes.js';
import { CV_PTR, IN_PTR, KEY_PTR, ROOT_PTR, XOF_PTR } from './_layout.js';
import { func, type FuncDef, type Template } from './_module.js';

// Parents from two word-sliced CV groups: left children are the even lanes, right the odd.
const EVEN_LANES = words(0, 2, 4, 6);
const ODD_LANES = words(1, 3, 5, 7);

/**
 * `chunks(n, counterLo, counterHi, flags, merges)`: hashes `n` (1 to MAX_CHUNKS) whole chunks
 * from IN_PTR, 4 at a time, the first with the 64-bit chunk counter given, then merges `merges`
 * levels of parents 4 at a time. Leaves n >> merges chaining values at CV_PTR (word-sliced).
 */
export function chunksFunction(opts: Required<KernelOptions>, g: Template | readonly Template[]): FuncDef {
  return func('chunks', { n: 'i32', ctrLo: 'i32', ctrHi: 'i32', flags: 'i32', merges: 'i32' }, (f, { n, ctrLo, ctrHi, flags, merges }) => {
    const sets = range(opts.interleave).map(() => ({
      L: lanes(f),
      h: f.locals('v128', 8),
      ctrLo: f.local('v128'),
      ctrHi: f.local('v128'),
      tmp: f.locals('v128', 4),
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
  });
}

/**
 * `xof(groups, counterLo, counterHi, blockLen, flags)`: 4 * groups root output blocks of the
 * node at ROOT_PTR, lanes = consecutive output counters from the 64-bit counter given, written
 * in stream order at XOF_PTR. `flags` includes ROOT.
 */
export function xofFunction(g: Template): FuncDef {
  return func('xof', { groups: 'i32', ctrLo: 'i32', ctrHi: 'i32', blockLen: 'i32', flags: 'i32' }, (f, { groups, ctrLo, ctrHi, blockLen, flags }) => {
    const L = lanes(f);
    const cv = f.locals('v128', 8);
    const w = f.locals('v128', 16);
    const tmp = f.locals('v128', 4);
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
  });
}

/**
 * `one(len, flags)`: the root output words 0-7 of a whole message of `len` (0-1024) bytes, one
 * chunk, on scalar i32 locals: the single-chunk path of `blake3()` for engines whose JS compress
 * is slower than their WASM (SpiderMonkey, JavaScriptCore). The input is at IN_PTR, zero-padded
 * to whole blocks (at least one); the key at KEY_PTR; the 8 words go to XOF_PTR.
 */
export function oneFunction(g: Template): FuncDef {
  return func('one', { len: 'i32', flags: 'i32' }, (f, { len, flags }) => {
    const h = f.locals('i32', 8);
    const v = f.locals('i32', 16);
    const m = f.locals('i32', 16);
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
  });
}
