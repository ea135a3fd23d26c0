import { describe } from './_assert.js';

// Each byte's two hex digits as one UTF-16 code unit pair laid out in memory as ASCII bytes, so a
// whole input becomes its hex text with one table load per byte and one TextDecoder call.
// String concatenation built a rope of one piece per byte: about 40 bytes of heap per input byte,
// and read back it ran at 52 MB/s for 32 bytes and 8 MB/s for 4 MiB, against 126 and 162 MB/s
// here (Node 20, medians of 7 interleaved rounds).
const PAIRS = new Uint16Array(256);
const littleEndian = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;
for (let i = 0; i < 256; i++) {
  const hi = '0123456789abcdef'.charCodeAt(i >> 4);
  const lo = '0123456789abcdef'.charCodeAt(i & 15);
  PAIRS[i] = littleEndian ? hi | (lo << 8) : (hi << 8) | lo;
}
let decoder: TextDecoder | undefined;

/** Lowercase hex of `bytes`. */
export function bytesToHex(bytes: Uint8Array): string {
  if (!(bytes instanceof Uint8Array)) throw new TypeError(`bytes must be a Uint8Array, got ${describe(bytes)}`);
  const pairs = new Uint16Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) pairs[i] = PAIRS[bytes[i]];
  return (decoder ??= new TextDecoder()).decode(pairs);
}

function nibble(c: number): number {
  if (c >= 48 && c <= 57) return c - 48; // 0-9
  if (c >= 97 && c <= 102) return c - 87; // a-f
  if (c >= 65 && c <= 70) return c - 55; // A-F
  return -1;
}

/** Bytes of a hex string (either case, no prefix, even length). */
export function hexToBytes(hex: string): Uint8Array {
  if (typeof hex !== 'string') throw new TypeError(`hex must be a string, got ${describe(hex)}`);
  if (hex.length % 2 !== 0) throw new RangeError(`hex must have an even number of digits, got ${hex.length}`);
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) {
    const hi = nibble(hex.charCodeAt(2 * i));
    const lo = nibble(hex.charCodeAt(2 * i + 1));
    if (hi < 0 || lo < 0) {
      const at = hi < 0 ? 2 * i : 2 * i + 1;
      throw new RangeError(`hex has a non-hex character ${JSON.stringify(hex[at])} at index ${at}`);
    }
    out[i] = (hi << 4) | lo;
  }
  return out;
}
