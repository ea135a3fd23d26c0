// Building blocks of the kernel's functions. Inter-chunk SIMD: lane i of every v128 holds the
// same word of a different chunk (or parent, or output block), so the rounds need no cross-lane
// shuffles. Each helper appends instructions to a function body.
import { IV } from '../_constants.js';
import { FunctionBody, type Local, type Template } from './_module.js';
import { TYPE_I32, TYPE_V128, I32X4_ADD, I32X4_LT_U, I32X4_SHL, I32X4_SHR_U, I32X4_SPLAT, I32X4_SUB, I32_ADD, I32_ROTR, I32_XOR, V128_LOAD, V128_OR, V128_XOR } from './_opcodes.js';

export type I32 = Local<typeof TYPE_I32>;
export type V128 = Local<typeof TYPE_V128>;

export type KernelOptions = {
  /**
   * Instruction order of the rounds: each G whole, one after the other ('g'), or the four G
   * functions of a column or diagonal pass advanced one step at a time ('steps').
   */
  readonly order?: 'g' | 'steps';
  /** Rotations by 16 and 8 in the chunk rounds: one byte shuffle each, or two shifts and an or like 12 and 7. */
  readonly rotate?: 'shuffle' | 'shift';
};

const MSG_PERMUTATION = [2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8];
// Columns, then diagonals, of the 4x4 state (spec, section 2.2).
const G_LANES = [
  [0, 4, 8, 12], [1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15],
  [0, 5, 10, 15], [1, 6, 11, 12], [2, 7, 8, 13], [3, 4, 9, 14],
] as const;

export const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
/** Byte indices of 32-bit lanes `lanes` of the concatenated shuffle operands (0-3 left, 4-7 right). */
export const words = (...lanes: number[]): number[] => lanes.flatMap((l) => [4 * l, 4 * l + 1, 4 * l + 2, 4 * l + 3]);
const ROT16 = range(16).map((i) => (i & ~3) + ((i + 2) & 3));
const ROT8 = range(16).map((i) => (i & ~3) + ((i + 1) & 3));
// 4x4 transpose from shuffles that engines lower to unpack instructions (punpck{l,h}{dq,qdq}).
const UNPACK_LO32 = words(0, 4, 1, 5);
const UNPACK_HI32 = words(2, 6, 3, 7);
const UNPACK_LO64 = words(0, 1, 4, 5);
const UNPACK_HI64 = words(2, 3, 6, 7);

/**
 * The 16 state vectors, 16 message vectors and scratch of one 4-lane compression. Message
 * vectors stay in locals: storing them after the transpose and loading them at each use measured
 * 1771 vs 2181 MB/s (V8, two interleaved groups).
 */
export type Lanes = { readonly v: V128[]; readonly m: V128[]; readonly t: V128; readonly r: V128[] };

export function lanes(f: FunctionBody): Lanes {
  return { v: f.locals(TYPE_V128, 16), m: f.locals(TYPE_V128, 16), t: f.local(TYPE_V128), r: f.locals(TYPE_V128, 4) };
}

/** How a SIMD G rotates: `rotr(n)` appends a rotation right by n of the value on the stack. */
type Rotate = (f: FunctionBody, t: number, n: number) => void;
const shiftRotate: Rotate = (f, t, n) =>
  f.tee(t).i32(n).simd(I32X4_SHR_U).get(t).i32(32 - n).simd(I32X4_SHL).simd(V128_OR);
// Rotations by 16 and 8 move whole bytes: one byte shuffle (pshufb) each.
const shuffleRotate: Rotate = (f, t, n) =>
  n === 16 || n === 8 ? f.tee(t).get(t).shuffle(n === 16 ? ROT16 : ROT8) : shiftRotate(f, t, n);

/**
 * The G function (the reference's `g`) on slots a, b, c, d (state), mx, my (message) and t
 * (scratch), as templates of `perTemplate` of its 8 steps, recorded once and replayed on each G's
 * locals; `rotate` rotates 4 lanes, or without it the steps are scalar, with the engine's native
 * rotate. Within a chain of `chain` steps each step takes the last one's result from the stack
 * (`tee`); one template per step leaves nothing on the stack, so replaying step k of the four G
 * functions of a pass before step k + 1 gives four independent chains side by side, as the
 * reference's SSE4.1 rounds do.
 */
function gSteps(rotate: Rotate | undefined, chain: number, perTemplate: number): Template[] {
  const [a, b, c, d, mx, my, t] = range(7);
  const templates: Template[] = [];
  let f = new FunctionBody(0);
  // [target, other operand, message slot or rotation]: a = a + b + mx, d = (d ^ a) >>> 16,
  // c = c + d, b = (b ^ c) >>> 12, a = a + b + my, d = (d ^ a) >>> 8, c = c + d, b = (b ^ c) >>> 7.
  const steps = [[a, b, mx], [d, a, 16], [c, d], [b, c, 12], [a, b, my], [d, a, 8], [c, d], [b, c, 7]];
  steps.forEach(([x, y, z], i) => {
    const add = () => (rotate ? f.simd(I32X4_ADD) : f.op(I32_ADD));
    f.get(x);
    if (i % chain === 0) f.get(y);
    if (i & 1) {
      if (rotate) rotate(f.simd(V128_XOR), t, z);
      else f.op(I32_XOR).i32(z).op(I32_ROTR);
    } else {
      add();
      if (z !== undefined) f.get(z), add();
    }
    if ((i + 1) % chain > 0) {
      f.tee(x);
    } else {
      f.set(x);
      if ((i + 1) % perTemplate === 0) templates.push(f.template()), (f = new FunctionBody(0));
    }
  });
  return templates;
}

/**
 * The G functions, each recorded once per module: `simd` for `xof` and `many`, `chunks` in the
 * order and with the rotations the options ask for (one template, or a G's 8 steps), `scalar` for `one`.
 */
export type Gs = { readonly simd: Template; readonly chunks: Template | readonly Template[]; readonly scalar: Template };
export function gTemplates(opts: Required<KernelOptions>): Gs {
  const [simd] = gSteps(shuffleRotate, 8, 8);
  const rotate = opts.rotate === 'shift' ? shiftRotate : shuffleRotate;
  const chunks = opts.order === 'steps' ? gSteps(rotate, 1, 1) : opts.rotate === 'shift' ? gSteps(rotate, 8, 8)[0] : simd;
  return { simd, chunks, scalar: gSteps(undefined, 4, 8)[0] };
}

/** The state and message locals of a compression: 4-lane v128 ones (with scratch `t`) or scalar i32 ones. */
type RoundSet = { readonly v: readonly V128[]; readonly m: readonly V128[]; readonly t: V128 } | { readonly v: readonly I32[]; readonly m: readonly I32[] };

/**
 * The 7 rounds; the message permutation is applied here, by renaming, not at run time. With
 * several lane sets, their G functions alternate (independent work for the out-of-order core).
 * `g` is one G template, replayed G by G, or a G's step templates, replayed step by step across
 * the four G functions of each pass.
 */
export function rounds(f: FunctionBody, sets: readonly RoundSet[], g: Template | readonly Template[]): void {
  const steps = Array.isArray(g) ? (g as readonly Template[]) : [g as Template];
  let schedule = range(16);
  for (let r = 0; r < 7; r++) {
    for (let pass = 0; pass < 8; pass += 4) {
      for (const step of steps) {
        for (let i = pass; i < pass + 4; i++) {
          const [a, b, c, d] = G_LANES[i];
          for (const set of sets) {
            const { v, m } = set;
            // Scratch `t` only for the SIMD G (its rotations by 12 and 7).
            const slots = [v[a], v[b], v[c], v[d], m[schedule[2 * i]], m[schedule[2 * i + 1]]];
            f.replay(step, 't' in set ? [...slots, set.t] : slots);
          }
        }
      }
    }
    schedule = MSG_PERMUTATION.map((p) => schedule[p]);
  }
}

/** Transposes the 4x4 matrix of 32-bit words whose rows are in locals `rows` into locals `out` (`t`: scratch). */
export function transpose(f: FunctionBody, rows: readonly V128[], out: readonly V128[], t: readonly V128[]): void {
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
export function loadMessage(f: FunctionBody, L: Lanes, ptr: I32, stride: number, tmp: readonly V128[], offset = 0): void {
  for (let q = 0; q < 4; q++) {
    for (let lane = 0; lane < 4; lane++) f.get(ptr).simdMem(V128_LOAD, offset + lane * stride + 16 * q).set(L.r[lane]);
    transpose(f, L.r, L.m.slice(4 * q, 4 * q + 4), tmp);
  }
}

/** v[8..11] = the first four IV words in every lane. */
export function initIv(f: FunctionBody, L: Lanes): void {
  for (let i = 0; i < 4; i++) f.v128i32x4([IV[i], IV[i], IV[i], IV[i]]).set(L.v[8 + i]);
}

/** Counter vectors for lanes 0-3: (lo + base + lane) with the carry into hi, 64 bits per lane. */
export function counters(f: FunctionBody, lo: I32, hi: I32, base: I32, outLo: V128, outHi: V128): void {
  f.get(lo).get(base).op(I32_ADD).simd(I32X4_SPLAT).v128i32x4([0, 1, 2, 3]).simd(I32X4_ADD).tee(outLo);
  f.get(lo).simd(I32X4_SPLAT).simd(I32X4_LT_U); // all ones where the low word wrapped
  f.set(outHi);
  f.get(hi).simd(I32X4_SPLAT).get(outHi).simd(I32X4_SUB).set(outHi);
}
