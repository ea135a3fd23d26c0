// The WebAssembly opcodes the kernels use, by their text-format names (core spec 5.4, SIMD
// proposal as merged in WebAssembly 2.0). Only what is emitted is listed: a name that is not
// here is a type error in the generator, not a wrong byte in a module.

/** Value types (core spec 5.3.1). */
export const valType = { i32: 0x7f, i64: 0x7e, f32: 0x7d, f64: 0x7c, v128: 0x7b } as const;
export type ValType = keyof typeof valType;

/** Single-byte instructions without immediates. */
export const plainOp = {
  unreachable: 0x00,
  else: 0x05,
  end: 0x0b,
  select: 0x1b,
  'i32.eqz': 0x45,
  'i32.eq': 0x46,
  'i32.ne': 0x47,
  'i32.lt_u': 0x49,
  'i32.gt_u': 0x4b,
  'i32.le_u': 0x4d,
  'i32.add': 0x6a,
  'i32.sub': 0x6b,
  'i32.mul': 0x6c,
  'i32.and': 0x71,
  'i32.or': 0x72,
  'i32.xor': 0x73,
  'i32.shl': 0x74,
  'i32.shr_u': 0x76,
  'i32.rotr': 0x78,
} as const;
export type PlainOp = keyof typeof plainOp;

/** `i32.const` (followed by an s32). */
export const I32_CONST = 0x41;

/** Structured control (followed by a block type). */
export const blockOp = { block: 0x02, loop: 0x03, if: 0x04 } as const;
export type BlockOp = keyof typeof blockOp;

/** Branches (followed by a u32 label depth). */
export const branchOp = { br: 0x0c, br_if: 0x0d } as const;
export type BranchOp = keyof typeof branchOp;

/** Local variable access (followed by a u32 local index). */
export const localOp = { 'local.get': 0x20, 'local.set': 0x21, 'local.tee': 0x22 } as const;
export type LocalOp = keyof typeof localOp;

/** Scalar memory access (followed by a memarg). */
export const memOp = { 'i32.load': 0x28, 'i32.store': 0x36 } as const;
export type MemOp = keyof typeof memOp;

/** The prefix byte of every SIMD instruction; the sub-opcode follows as a u32 LEB128. */
export const SIMD_PREFIX = 0xfd;

/** SIMD instructions without immediates. */
export const simdOp = {
  'i32x4.splat': 0x11,
  'i32x4.lt_u': 0x3a,
  'v128.or': 0x50,
  'v128.xor': 0x51,
  'i32x4.shl': 0xab,
  'i32x4.shr_u': 0xad,
  'i32x4.add': 0xae,
  'i32x4.sub': 0xb1,
} as const;
export type SimdOp = keyof typeof simdOp;

/** SIMD memory access (followed by a memarg). */
export const simdMemOp = {
  'v128.load': 0x00,
  'v128.load32_splat': 0x09,
  'v128.store': 0x0b,
  'v128.load32_zero': 0x5c,
} as const;
export type SimdMemOp = keyof typeof simdMemOp;

/** SIMD memory access to one lane (followed by a memarg, then the lane index byte). */
export const simdMemLaneOp = { 'v128.load32_lane': 0x56 } as const;
export type SimdMemLaneOp = keyof typeof simdMemLaneOp;

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
