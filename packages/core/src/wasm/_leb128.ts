// LEB128, the variable-length integers of the WebAssembly binary format (core spec, 5.2.2).
// Immediates are typed: `u32` for indices, lengths and memarg fields, `s32` for `i32.const`.

/** Appends the unsigned LEB128 of an integer in [0, 2^32) to `out`; returns `out`. */
export function u32(n: number, out: number[] = []): number[] {
  if (n >>> 0 !== n) throw new RangeError(`u32 immediate out of range: ${n}`);
  for (; n > 0x7f; n >>>= 7) out.push((n & 0x7f) | 0x80);
  out.push(n);
  return out;
}

/** Appends the signed LEB128 of an integer in [-2^31, 2^31) to `out`; returns `out`. */
export function s32(n: number, out: number[] = []): number[] {
  if ((n | 0) !== n) throw new RangeError(`s32 immediate out of range: ${n}`);
  // Done when the rest is all sign bits and bit 6 of the last byte (the sign) agrees with them.
  for (; n >> 6 !== n >> 31; n >>= 7) out.push((n & 0x7f) | 0x80);
  out.push(n & 0x7f);
  return out;
}
