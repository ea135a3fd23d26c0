// LEB128, the variable-length integers of the WebAssembly binary format (core spec, 5.2.2).
// Immediates are typed: `u32` for indices, lengths and memarg fields, `s32` for `i32.const`.

/** Where encoded bytes go: an array, or the module writer. */
export interface ByteSink {
  push(byte: number): unknown;
}

/** Appends the unsigned LEB128 of an integer in [0, 2^32). */
export function writeU32(out: ByteSink, n: number): void {
  // One byte: most immediates (local indices, alignments, small offsets).
  if (n >>> 0 === n && n < 0x80) {
    out.push(n);
    return;
  }
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff)
    throw new RangeError(`u32 immediate must be an integer in [0, 2^32), got ${n}`);
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
}

/** Appends the signed LEB128 of an integer in [-2^31, 2^31). */
export function writeS32(out: ByteSink, n: number): void {
  if (!Number.isInteger(n) || n < -0x80000000 || n > 0x7fffffff) {
    throw new RangeError(`s32 immediate must be an integer in [-2^31, 2^31), got ${n}`);
  }
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7; // arithmetic shift keeps the sign
    // Done when the rest is all sign bits and the sign bit of this byte (0x40) agrees with it.
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) {
      out.push(byte);
      return;
    }
    out.push(byte | 0x80);
  }
}

/** Unsigned LEB128 of an integer in [0, 2^32). */
export function u32(n: number): number[] {
  const out: number[] = [];
  writeU32(out, n);
  return out;
}

/** Signed LEB128 of an integer in [-2^31, 2^31). */
export function s32(n: number): number[] {
  const out: number[] = [];
  writeS32(out, n);
  return out;
}
