// A small WebAssembly module writer: typed immediates, named opcodes, and vectors and sections
// whose lengths are computed, never written by hand. Pure: the same calls give the same bytes.
import { s32, u32 } from './_leb128.js';
import {
  CODE_SECTION,
  EMPTY_BLOCK,
  END,
  EXPORT_SECTION,
  FUNC_EXPORT,
  FUNCTION_SECTION,
  MEMORY_EXPORT,
  MEMORY_SECTION,
  TYPE_SECTION,
  FUNC_TYPE,
  I32_CONST,
  LOCAL_GET,
  LOCAL_SET,
  LOCAL_TEE,
  SIMD_I8X16_SHUFFLE,
  SIMD_PREFIX,
  SIMD_V128_CONST,
  V128_LOAD,
  V128_STORE,
  TYPE_I32,
  type BlockOp,
  type BranchOp,
  type MemOp,
  type PlainOp,
  type SimdMemOp,
  type SimdOp,
  type ValType,
} from './_opcodes.js';

/**
 * A recorded instruction sequence whose local indices are slots (0, 1, ...), replayed with
 * `FunctionBody.replay` on other locals: the kernel's 280 G functions are one template, which
 * keeps generating the module cheap even in cold, interpreted JS.
 */
export type Template = { readonly code: readonly number[]; readonly slots: readonly number[] };

/** A vector: its element count as a u32, then the elements. */
export const vec = (items: readonly (readonly number[])[]): number[] => u32(items.length).concat(...items);

/** A section: its id, its size as a u32, then its body. */
export const section = (id: number, body: readonly number[]): number[] => u32(body.length, [id]).concat(body);

/** A name: our export names are ASCII, a subset of UTF-8 that needs no TextEncoder. */
export const name = (s: string): number[] => [s.length, ...Array.from(s, (c) => c.charCodeAt(0))];

declare const localType: unique symbol;
/**
 * The index of a local (or parameter) of type T: a `v128` local cannot be passed where an `i32`
 * one is wanted. Plain numbers stand for any local (template slots, tests).
 */
export type Local<T extends ValType> = number & { readonly [localType]?: T };

/**
 * The body of one function: its locals and its instructions. Methods append one instruction
 * each and return `this`; `local()` declares a local and returns its index (after the params).
 */
export class FunctionBody {
  readonly #code: number[] = [];
  /** Where in #code local indices are, for `template()`. */
  readonly #slots: number[] = [];
  readonly #locals: ValType[] = [];
  readonly #paramCount: number;

  constructor(paramCount: number) {
    this.#paramCount = paramCount;
  }

  local<T extends ValType>(type: T): Local<T> {
    return this.#paramCount + this.#locals.push(type) - 1;
  }

  /** `n` new locals of type `type`. */
  locals<T extends ValType>(type: T, n: number): Local<T>[] {
    return Array.from({ length: n }, () => this.local(type));
  }

  op(code: PlainOp): this {
    this.#code.push(code);
    return this;
  }

  /** `block`, `loop` or `if` without results. */
  block(code: BlockOp): this {
    this.#code.push(code, EMPTY_BLOCK);
    return this;
  }

  br(code: BranchOp, depth: number): this {
    this.#code.push(code);
    u32(depth, this.#code);
    return this;
  }

  get(index: Local<ValType>): this {
    return this.#local(LOCAL_GET, index);
  }

  set(index: Local<ValType>): this {
    return this.#local(LOCAL_SET, index);
  }

  tee(index: Local<ValType>): this {
    return this.#local(LOCAL_TEE, index);
  }

  #local(code: number, index: number): this {
    this.#slots.push(this.#code.push(code));
    u32(index, this.#code);
    return this;
  }

  /** The instructions so far as a template (its slots are the local indices, each below 128: one byte). */
  template(): Template {
    return { code: this.#code, slots: this.#slots };
  }

  /** Appends the instructions of `t` with slot `i` replaced by local `locals[i]` (each below 128). */
  replay(t: Template, locals: readonly Local<ValType>[]): this {
    const code = this.#code;
    const base = code.length;
    code.push(...t.code);
    for (const at of t.slots) {
      const local = locals[t.code[at]];
      if (!(local < 0x80)) throw new RangeError(`replayed locals must be below 128, got ${local}`);
      this.#slots.push(base + at);
      code[base + at] = local;
    }
    return this;
  }

  /** `i32.const`: its immediate is signed; uint32 values are taken modulo 2^32. */
  i32(n: number): this {
    this.#code.push(I32_CONST);
    s32(n | 0, this.#code);
    return this;
  }

  mem(code: MemOp, offset = 0, alignLog2 = 2): this {
    this.#code.push(code);
    return this.#memarg(offset, alignLog2);
  }

  /** Memory operand: alignment as a power of two (2 or 4: one byte), then the constant offset added to the address. */
  #memarg(offset: number, alignLog2: number): this {
    this.#code.push(alignLog2);
    u32(offset, this.#code);
    return this;
  }

  simd(code: SimdOp): this {
    this.#code.push(SIMD_PREFIX);
    u32(code, this.#code);
    return this;
  }

  simdMem(code: SimdMemOp, offset = 0, alignLog2: number = code === V128_LOAD || code === V128_STORE ? 4 : 2): this {
    return this.simd(code as number as SimdOp).#memarg(offset, alignLog2);
  }

  /** `v128.const` from four 32-bit lanes (little-endian). */
  v128i32x4(lanes: readonly [number, number, number, number]): this {
    this.simd(SIMD_V128_CONST as SimdOp);
    for (const w of lanes) this.#code.push(w & 0xff, (w >>> 8) & 0xff, (w >>> 16) & 0xff, w >>> 24);
    return this;
  }

  /** `i8x16.shuffle`: byte `i` of the result is byte `lanes[i]` (16 of them, each below 32) of the concatenated operands. */
  shuffle(lanes: readonly number[]): this {
    this.simd(SIMD_I8X16_SHUFFLE as SimdOp).#code.push(...lanes);
    return this;
  }

  /** The code entry: size, locals grouped in runs of one type, instructions, `end`. */
  encode(): number[] {
    const runs: number[][] = [];
    const types = this.#locals;
    for (let i = 0, j = 0; i < types.length; i = j) {
      while (types[j] === types[i]) j++;
      runs.push(u32(j - i).concat(types[i]));
    }
    const body = vec(runs).concat(this.#code, END);
    return u32(body.length).concat(body);
  }
}

/** An exported function of `arity` i32 parameters and no results: its name, arity and body. */
export type FuncDef = { readonly name: string; readonly arity: number; readonly body: FunctionBody };

/** An exported function of `arity` i32 parameters and no results; `build` gets the parameters as locals, in order. */
export function func(
  name: string,
  arity: number,
  build: (f: FunctionBody, params: Local<typeof TYPE_I32>[]) => void,
): FuncDef {
  const body = new FunctionBody(arity);
  build(
    body,
    Array.from({ length: arity }, (_, i) => i),
  );
  return { name, arity, body };
}

/** A module of exported functions over one exported memory, `memory`, of `pages` 64 KiB pages. */
export function encodeModule(funcs: readonly FuncDef[], pages: number): Uint8Array<ArrayBuffer> {
  // Limits with both min and max (flag 1): the memory never grows, so views on it stay valid.
  const limits = [1, ...u32(pages), ...u32(pages)];
  const parts = [
    [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00], // "\0asm", version 1
    section(
      TYPE_SECTION,
      vec(funcs.map((f) => [FUNC_TYPE, ...u32(f.arity), ...Array<number>(f.arity).fill(TYPE_I32), 0])),
    ),
    section(FUNCTION_SECTION, vec(funcs.map((_, i) => u32(i)))),
    section(MEMORY_SECTION, vec([limits])),
    section(
      EXPORT_SECTION,
      vec([...funcs.map((f, i) => [...name(f.name), FUNC_EXPORT, ...u32(i)]), [...name('memory'), MEMORY_EXPORT, 0]]),
    ),
    section(CODE_SECTION, vec(funcs.map((f) => f.body.encode()))),
  ];
  // Copied with set(): spreading the 30 KB code section into one array cost cold JS 10-20 ms.
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
  return out;
}
