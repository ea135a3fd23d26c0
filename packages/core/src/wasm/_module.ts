// A small WebAssembly module writer: typed immediates, named opcodes, and vectors and sections
// whose lengths are computed, never written by hand. Pure: the same calls give the same bytes.
import { u32, writeS32, writeU32, type ByteSink } from './_leb128.js';
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
  valType,
  type BlockOp,
  type BranchOp,
  type MemOp,
  type PlainOp,
  type SimdMemLaneOp,
  type SimdMemOp,
  type SimdOp,
  type ValType,
} from './_opcodes.js';

/**
 * A growable byte buffer. The kernel is ~30 KB of code generated once, on first use, mostly by
 * cold (interpreted) JS: writing bytes in place keeps that to a few milliseconds.
 */
export class ByteWriter implements ByteSink {
  #buf = new Uint8Array(1024);
  #len = 0;

  get length(): number {
    return this.#len;
  }

  push(byte: number): void {
    if (this.#len === this.#buf.length) this.#reserve(1);
    this.#buf[this.#len++] = byte;
  }

  append(bytes: ArrayLike<number>): void {
    if (bytes instanceof Uint8Array) {
      this.#reserve(bytes.length);
      this.#buf.set(bytes, this.#len);
      this.#len += bytes.length;
    } else {
      for (let i = 0; i < bytes.length; i++) this.push(bytes[i]);
    }
  }

  #reserve(n: number): void {
    if (this.#len + n <= this.#buf.length) return;
    let cap = this.#buf.length * 2;
    while (cap < this.#len + n) cap *= 2;
    const grown = new Uint8Array(cap);
    grown.set(this.#buf.subarray(0, this.#len));
    this.#buf = grown;
  }

  /** Overwrites the byte at `pos` (already written). */
  patch(pos: number, byte: number): void {
    if (pos >= this.#len) throw new RangeError(`patch at ${pos} is past the ${this.#len} bytes written`);
    this.#buf[pos] = byte;
  }

  bytes(): Uint8Array<ArrayBuffer> {
    return this.#buf.slice(0, this.#len);
  }
}

/**
 * A recorded instruction sequence whose local indices are slots (0, 1, ...), replayed with
 * `FunctionBody.replay` on other locals: the kernel's 280 G functions are one template, which
 * keeps generating the module cheap even in cold, interpreted JS.
 */
export type Template = { readonly code: Uint8Array; readonly slots: readonly number[] };

/** Concatenates byte arrays. */
export function concat(parts: readonly ArrayLike<number>[]): number[] {
  const out: number[] = [];
  for (const part of parts) for (let i = 0; i < part.length; i++) out.push(part[i]);
  return out;
}

/** A vector: its element count as a u32, then the elements. */
export function vec(items: readonly ArrayLike<number>[]): number[] {
  return concat([u32(items.length), ...items]);
}

/** A byte vector: its length as a u32, then the bytes. */
export function byteVec(bytes: ArrayLike<number>): number[] {
  return concat([u32(bytes.length), bytes]);
}

/** A name (ASCII only, a subset of UTF-8: our export names need no more, nor TextEncoder). */
export function name(s: string): number[] {
  const bytes = Array.from(s, (c) => c.charCodeAt(0));
  if (bytes.some((b) => b > 0x7f)) throw new RangeError(`export names must be ASCII, got ${JSON.stringify(s)}`);
  return byteVec(bytes);
}

/** A section: its id, its size as a u32, then its body. */
export function section(id: number, body: ArrayLike<number>): number[] {
  return concat([[id], u32(body.length), body]);
}

function byte(n: number, what: string): number {
  if (!Number.isInteger(n) || n < 0 || n > 255) throw new RangeError(`${what} must be a byte, got ${n}`);
  return n;
}

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
  readonly #code = new ByteWriter();
  /** Offsets in #code of local indices, for `template()`. */
  readonly #slots: number[] = [];
  readonly #locals: ValType[] = [];
  readonly #paramCount: number;

  constructor(paramCount: number) {
    this.#paramCount = paramCount;
  }

  local<T extends ValType>(type: T): Local<T> {
    this.#locals.push(type);
    return this.#paramCount + this.#locals.length - 1;
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
    this.#code.push(code);
    this.#code.push(EMPTY_BLOCK);
    return this;
  }

  br(code: BranchOp, depth: number): this {
    this.#code.push(code);
    writeU32(this.#code, depth);
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
    this.#code.push(code);
    this.#slots.push(this.#code.length);
    writeU32(this.#code, index);
    return this;
  }

  /** The instructions so far as a template; every local index must be a slot below 128 (one byte). */
  template(): Template {
    const code = this.#code.bytes();
    for (const at of this.#slots)
      if (code[at] > 0x7f) throw new RangeError(`template slots must be below 128, got ${code[at]}`);
    return { code, slots: [...this.#slots] };
  }

  /** Appends the instructions of `t` with slot `i` replaced by local `locals[i]` (each below 128). */
  replay(t: Template, locals: readonly Local<ValType>[]): this {
    const base = this.#code.length;
    this.#code.append(t.code);
    for (const at of t.slots) {
      const local = locals[t.code[at]];
      if (!(local >= 0 && local < 0x80)) throw new RangeError(`replayed locals must be below 128, got ${local}`);
      this.#slots.push(base + at);
      this.#code.patch(base + at, local);
    }
    return this;
  }

  /** `i32.const`: its immediate is signed; uint32 values are taken modulo 2^32. */
  i32(n: number): this {
    this.#code.push(I32_CONST);
    writeS32(this.#code, n | 0);
    return this;
  }

  mem(code: MemOp, offset = 0, alignLog2 = 2): this {
    this.#code.push(code);
    return this.#memarg(offset, alignLog2);
  }

  /** Memory operand: alignment as a power of two, then the constant offset added to the address. */
  #memarg(offset: number, alignLog2: number): this {
    writeU32(this.#code, alignLog2);
    writeU32(this.#code, offset);
    return this;
  }

  #simd(subOpcode: number): void {
    this.#code.push(SIMD_PREFIX);
    writeU32(this.#code, subOpcode);
  }

  simd(code: SimdOp): this {
    this.#simd(code);
    return this;
  }

  simdMem(code: SimdMemOp, offset = 0, alignLog2 = code === V128_LOAD || code === V128_STORE ? 4 : 2): this {
    this.#simd(code);
    return this.#memarg(offset, alignLog2);
  }

  simdMemLane(code: SimdMemLaneOp, lane: number, offset = 0, alignLog2 = 2): this {
    this.#simd(code);
    this.#memarg(offset, alignLog2);
    this.#code.push(byte(lane, 'lane'));
    return this;
  }

  /** `v128.const` from four 32-bit lanes (little-endian). */
  v128i32x4(lanes: readonly [number, number, number, number]): this {
    this.#simd(SIMD_V128_CONST);
    for (const w of lanes) for (let s = 0; s < 32; s += 8) this.#code.push((w >>> s) & 0xff);
    return this;
  }

  /** `i8x16.shuffle`: byte `i` of the result is byte `lanes[i]` of the concatenated operands. */
  shuffle(lanes: readonly number[]): this {
    if (lanes.length !== 16 || lanes.some((l) => !Number.isInteger(l) || l < 0 || l > 31)) {
      throw new RangeError(`i8x16.shuffle takes 16 lane indices in [0, 32), got ${lanes.join(',')}`);
    }
    this.#simd(SIMD_I8X16_SHUFFLE);
    this.#code.append(lanes);
    return this;
  }

  /** The code entry: size, locals grouped in runs of one type, instructions, `end`. */
  encode(): Uint8Array<ArrayBuffer> {
    const runs: number[][] = [];
    for (let i = 0; i < this.#locals.length;) {
      let j = i;
      while (j < this.#locals.length && this.#locals[j] === this.#locals[i]) j++;
      runs.push([...u32(j - i), valType[this.#locals[i]]]);
      i = j;
    }
    const locals = vec(runs);
    const out = new ByteWriter();
    writeU32(out, locals.length + this.#code.length + 1);
    out.append(locals);
    out.append(this.#code.bytes());
    out.push(END);
    return out.bytes();
  }
}

const MAGIC = [0x00, 0x61, 0x73, 0x6d]; // "\0asm"
const VERSION = [0x01, 0x00, 0x00, 0x00];
const LIMITS_MIN_MAX = 0x01;

export type FuncType = { readonly params: readonly ValType[]; readonly results: readonly ValType[] };
export type FuncDef = { readonly name: string; readonly type: FuncType; readonly body: FunctionBody };

/**
 * An exported function without results, its signature stated once: `params` names each
 * parameter and its type, in order, and `build` gets them as typed locals.
 */
export function func<P extends Record<string, ValType>>(
  name: string,
  params: P,
  build: (f: FunctionBody, p: { readonly [K in keyof P]: Local<P[K]> }) => void,
): FuncDef {
  const names = Object.keys(params);
  const body = new FunctionBody(names.length);
  build(body, Object.fromEntries(names.map((n, i) => [n, i])) as { readonly [K in keyof P]: Local<P[K]> });
  return { name, type: { params: names.map((n) => params[n]), results: [] }, body };
}

/** A module of exported functions over one exported memory of `pages` 64 KiB pages. */
export function encodeModule(
  funcs: readonly FuncDef[],
  memory?: { name: string; pages: number },
): Uint8Array<ArrayBuffer> {
  const types = funcs.map((f) => [
    FUNC_TYPE,
    ...vec(f.type.params.map((t) => [valType[t]])),
    ...vec(f.type.results.map((t) => [valType[t]])),
  ]);
  // Not named `exports`: linters take `exports.x` for CommonJS.
  const exportEntries = funcs.map((f, i) => [...name(f.name), FUNC_EXPORT, ...u32(i)]);
  const out = new ByteWriter();
  out.append(MAGIC);
  out.append(VERSION);
  out.append(section(TYPE_SECTION, vec(types)));
  out.append(section(FUNCTION_SECTION, vec(funcs.map((_, i) => u32(i)))));
  if (memory) {
    // Limits with both min and max: the memory never grows, so views on it stay valid.
    out.append(section(MEMORY_SECTION, vec([[LIMITS_MIN_MAX, ...u32(memory.pages), ...u32(memory.pages)]])));
    exportEntries.push([...name(memory.name), MEMORY_EXPORT, ...u32(0)]);
  }
  out.append(section(EXPORT_SECTION, vec(exportEntries)));
  // The code section is most of the module: written in place rather than through arrays.
  const code = new ByteWriter();
  writeU32(code, funcs.length);
  for (const f of funcs) code.append(f.body.encode());
  out.push(CODE_SECTION);
  writeU32(out, code.length);
  out.append(code.bytes());
  return out.bytes();
}
