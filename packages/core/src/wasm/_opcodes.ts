// The WebAssembly opcodes the kernels use, named after their text-format names (core spec 5.4,
// SIMD proposal as merged in WebAssembly 2.0): `I32X4_SHR_U` is `i32x4.shr_u`. Only what is
// emitted is listed. Plain numeric constants and nothing else, value types included: esbuild
// (0.28) then inlines each at its call sites; one object among them (a table of value types)
// made it keep a variable per opcode, about 0.4 KB more gzipped for `{ blake3 }`. Each kind has
// its own type, so an opcode passed to another kind's method is a type error, not a wrong byte
// in a module.

/** An opcode of one instruction kind. */
type Opcode<K extends string> = number & { readonly kind?: K };

/** Value types (core spec 5.3.1), as the binary format writes them. */
export const TYPE_I32 = 0x7f;
export const TYPE_V128 = 0x7b;
export type ValType = typeof TYPE_I32 | typeof TYPE_V128;

/** Single-byte instructions without immediates. */
export type PlainOp = Opcode<'plain'>;
export const ELSE = 0x05 as PlainOp;
export const END = 0x0b as PlainOp;
export const SELECT = 0x1b as PlainOp;
export const I32_EQZ = 0x45 as PlainOp;
export const I32_EQ = 0x46 as PlainOp;
export const I32_NE = 0x47 as PlainOp;
export const I32_LT_U = 0x49 as PlainOp;
export const I32_GT_U = 0x4b as PlainOp;
export const I32_LE_U = 0x4d as PlainOp;
export const I32_ADD = 0x6a as PlainOp;
export const I32_SUB = 0x6b as PlainOp;
export const I32_MUL = 0x6c as PlainOp;
export const I32_AND = 0x71 as PlainOp;
export const I32_OR = 0x72 as PlainOp;
export const I32_XOR = 0x73 as PlainOp;
export const I32_SHL = 0x74 as PlainOp;
export const I32_SHR_U = 0x76 as PlainOp;
export const I32_ROTR = 0x78 as PlainOp;

/** `i32.const` (followed by an s32). */
export const I32_CONST = 0x41;

/** Structured control (followed by a block type). */
export type BlockOp = Opcode<'block'>;
export const BLOCK = 0x02 as BlockOp;
export const LOOP = 0x03 as BlockOp;
export const IF = 0x04 as BlockOp;

/** Branches (followed by a u32 label depth). */
export type BranchOp = Opcode<'branch'>;
export const BR = 0x0c as BranchOp;
export const BR_IF = 0x0d as BranchOp;

/** Local variable access (followed by a u32 local index). */
export const LOCAL_GET = 0x20;
export const LOCAL_SET = 0x21;
export const LOCAL_TEE = 0x22;

/** Scalar memory access (followed by a memarg). */
export type MemOp = Opcode<'mem'>;
export const I32_LOAD = 0x28 as MemOp;
export const I32_STORE = 0x36 as MemOp;

/** SIMD instructions without immediates (sub-opcodes after SIMD_PREFIX). */
export type SimdOp = Opcode<'simd'>;
export const I32X4_SPLAT = 0x11 as SimdOp;
export const I32X4_LT_U = 0x3a as SimdOp;
export const V128_OR = 0x50 as SimdOp;
export const V128_XOR = 0x51 as SimdOp;
export const I32X4_SHL = 0xab as SimdOp;
export const I32X4_SHR_U = 0xad as SimdOp;
export const I32X4_ADD = 0xae as SimdOp;
export const I32X4_SUB = 0xb1 as SimdOp;

/** SIMD memory access (followed by a memarg). */
export type SimdMemOp = Opcode<'simdMem'>;
export const V128_LOAD = 0x00 as SimdMemOp;
export const V128_LOAD32_SPLAT = 0x09 as SimdMemOp;
export const V128_STORE = 0x0b as SimdMemOp;

/** The prefix byte of every SIMD instruction; the sub-opcode follows as a u32 LEB128. */
export const SIMD_PREFIX = 0xfd;

/** `v128.const` (16 immediate bytes) and `i8x16.shuffle` (16 lane indices). */
export const SIMD_V128_CONST = 0x0c;
export const SIMD_I8X16_SHUFFLE = 0x0d;

/** The section ids (core spec 5.5.2) and export kinds (5.5.10) the module writer uses. */
export const TYPE_SECTION = 1;
export const FUNCTION_SECTION = 3;
export const MEMORY_SECTION = 5;
export const EXPORT_SECTION = 7;
export const CODE_SECTION = 10;
export const FUNC_EXPORT = 0x00;
export const MEMORY_EXPORT = 0x02;

/** The type constructor of function types and the empty block type. */
export const FUNC_TYPE = 0x60;
export const EMPTY_BLOCK = 0x40;
