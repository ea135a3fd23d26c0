// Two groups of 4 chunks hashed as one 8-lane stream, the shape V8's SIMD256 revectorizer
// (`--experimental-wasm-revectorize` in Deno, `--wasm-revectorize` in Chromium) fuses into AVX2
// instructions: every operand of a block's rounds waits in adjacent 16-byte slots of memory
// (group 0, then group 1) and is read with plain loads, paired operations sit next to each
// other, and the chaining values go back to adjacent slots after each block. Without the flag it
// runs at about 0.6x the default shape (docs/wasm-kernel.md), so the library does not use it:
// nothing here is imported by the runtime generator, only by the tests and the benchmarks.
import { BLOCK_LEN, CHUNK_END, CHUNK_LEN, CHUNK_START, IV } from '../_constants.js';
import { chunksFunction, oneFunction, xofFunction, type PairLoopContext } from './_functions.js';
import { counters, gTemplates, loadMessage, rounds, type KernelOptions } from './_lanes.js';
import { HASH_PAGES, KEY_PTR, XOF_PTR } from './_layout.js';
import { encodeModule } from './_module.js';
import {
  BLOCK,
  BR,
  BR_IF,
  END,
  I32X4_SPLAT,
  I32_ADD,
  I32_EQ,
  I32_EQZ,
  I32_GT_U,
  I32_MUL,
  I32_NE,
  I32_OR,
  LOOP,
  V128_LOAD,
  V128_LOAD32_SPLAT,
  V128_STORE,
  V128_XOR,
} from './_opcodes.js';

/**
 * The loop of `chunks` over pairs of groups, 8 chunks per step while at least 8 remain. The
 * slots are in the XOF area, which nothing else uses while `chunks` runs: state word w (0-15)
 * and message word 16 + j at XOF_PTR + 32 * w, group 0 first.
 */
function pairLoop({ f, opts, g, sets, group, groupEnd, input, out, p, b, ctrLo, ctrHi, flags }: PairLoopContext): void {
  const [A, B] = sets;
  const slot = (word: number) => XOF_PTR + 32 * word; // state word 0-15, message word 16-31
  const load = (word: number, i: number) => f.i32(0).simdMem(V128_LOAD, slot(word) + 16 * i);
  const store = (word: number, i: number, value: () => unknown) => (
    f.i32(0),
    value(),
    f.simdMem(V128_STORE, slot(word) + 16 * i)
  );
  for (let j = 0; j < 4; j++)
    for (let i = 0; i < 2; i++) store(8 + j, i, () => f.v128i32x4([IV[j], IV[j], IV[j], IV[j]]));
  for (let i = 0; i < 2; i++) store(14, i, () => f.v128i32x4([BLOCK_LEN, BLOCK_LEN, BLOCK_LEN, BLOCK_LEN]));
  f.block(BLOCK);
  f.block(LOOP);
  {
    f.get(group).i32(8).op(I32_ADD).get(groupEnd).op(I32_GT_U).br(BR_IF, 1);
    f.get(group).i32(4).op(I32_ADD).set(b);
    [A, B].forEach((set, i) => {
      counters(f, ctrLo, ctrHi, i > 0 ? b : group, set.ctrLo, set.ctrHi);
      store(12, i, () => f.get(set.ctrLo));
      store(13, i, () => f.get(set.ctrHi));
    });
    for (let j = 0; j < 8; j++)
      for (let i = 0; i < 2; i++) store(j, i, () => f.i32(0).simdMem(V128_LOAD32_SPLAT, KEY_PTR + 4 * j));
    f.get(input).set(p).i32(0).set(b);
    f.block(LOOP);
    {
      [A, B].forEach((set, i) => {
        loadMessage(f, set.L, p, CHUNK_LEN, opts, set.tmp, 4 * CHUNK_LEN * i);
        for (let j = 0; j < 16; j++) store(16 + j, i, () => f.get(set.L.m[j]));
      });
      // flags | CHUNK_START on block 0 | CHUNK_END on block 15
      f.get(flags).get(b).op(I32_EQZ).i32(CHUNK_START).op(I32_MUL).op(I32_OR);
      f.get(b)
        .i32(CHUNK_LEN / BLOCK_LEN - 1)
        .op(I32_EQ)
        .i32(CHUNK_END)
        .op(I32_MUL)
        .op(I32_OR);
      f.simd(I32X4_SPLAT).set(A.L.v[15]);
      for (let i = 0; i < 2; i++) store(15, i, () => f.get(A.L.v[15]));
      for (let j = 0; j < 16; j++) for (const [i, set] of [A, B].entries()) load(j, i).set(set.L.v[j]);
      rounds(f, [A.L, B.L], g, (set, jx, jy, step) => {
        // Each message word loaded from its slot where its step uses it (the first, or the fifth of
        // a G's 8 steps), into m[0] and m[1].
        const i = set === A.L ? 0 : 1;
        if (step === 0) load(16 + jx, i).set(set.m[0]);
        if (step === (Array.isArray(g) ? 4 : 0)) load(16 + jy, i).set(set.m[1]);
        return [set.m[0], set.m[1]];
      });
      for (let j = 0; j < 8; j++)
        for (const [i, set] of [A, B].entries())
          store(j, i, () =>
            f
              .get(set.L.v[j])
              .get(set.L.v[j + 8])
              .simd(V128_XOR),
          );
      f.get(p).i32(BLOCK_LEN).op(I32_ADD).set(p);
      f.get(b)
        .i32(1)
        .op(I32_ADD)
        .tee(b)
        .i32(CHUNK_LEN / BLOCK_LEN)
        .op(I32_NE)
        .br(BR_IF, 0);
    }
    f.op(END);
    for (let i = 0; i < 2; i++)
      for (let j = 0; j < 8; j++) (f.get(out), load(j, i), f.simdMem(V128_STORE, 128 * i + 16 * j));
    f.get(out).i32(256).op(I32_ADD).set(out);
    f.get(input)
      .i32(8 * CHUNK_LEN)
      .op(I32_ADD)
      .set(input);
    f.get(group).i32(8).op(I32_ADD).set(group);
    f.br(BR, 0);
  }
  f.op(END);
  f.op(END);
}

/** The hash piece (`chunks`, `xof`, `one`) with `chunks` in the paired shape, for `options` otherwise. */
export function pairedHashModule(options: KernelOptions = {}): Uint8Array<ArrayBuffer> {
  const opts: Required<KernelOptions> = {
    loads: 'transpose',
    interleave: 1,
    order: 'steps',
    rotate: 'shift',
    shl: 'shift',
    ...options,
  };
  const gs = gTemplates(opts);
  return encodeModule([chunksFunction(opts, gs.chunks, pairLoop), xofFunction(gs.simd), oneFunction(gs.scalar)], {
    name: 'memory',
    pages: HASH_PAGES,
  });
}
