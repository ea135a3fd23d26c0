// LEB128, the variable-length integers of the WebAssembly binary format (core spec, 5.2.2).
// Immediates are typed: `u32` for indices, lengths and memarg fields, `s32` for `i32.const`.

/** Unsigned LEB128 of an integer in [0, 2^32). */
export function u32(n: number): number[] {
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new RangeError(`u32 immediate must be an integer in [0, 2^32), got ${n}`);
  const out: number[] = [];
  do {
    const byte = n % 128;
    n = Math.floor(n / 128);
    out.push(n === 0 ? byte : byte | 0x80);
  } while (n !== 0);
  return out;
}

/** Signed LEB128 of an integer in [-2^31, 2^31). */
export function s32(n: number): number[] {
  if (!Number.isInteger(n) || n < -0x80000000 || n > 0x7fffffff) {
    throw new RangeError(`s32 immediate must be an integer in [-2^31, 2^31), got ${n}`);
  }
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7; // arithmetic shift keeps the sign
    // Done when the rest is all sign bits and the sign bit of this byte (0x40) agrees with it.
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) {
      out.push(byte);
      return out;
    }
    out.push(byte | 0x80);
  }
}
