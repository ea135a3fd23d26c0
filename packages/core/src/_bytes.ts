import { aLiveBuffer, describe, isPlainBytes, viewBytes } from './_assert.js';

export type Input = Uint8Array | ArrayBufferView | ArrayBufferLike | string;

/** True on little-endian hosts, where input words can be read through a Uint32Array view. */
export const LITTLE_ENDIAN: boolean = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

let encoder: TextEncoder | undefined;

/** Views any supported input as bytes without copying; strings are encoded as UTF-8. */
export function toBytes(input: unknown, name: string): Uint8Array {
  if (isPlainBytes(input) && input.length !== 0) return input;
  if (typeof input === 'string') return utf8(input, name);
  if (ArrayBuffer.isView(input)) return viewBytes(input, name);
  if (isArrayBuffer(input)) {
    aLiveBuffer(input, name);
    return new Uint8Array(input);
  }
  throw new TypeError(
    `${name} must be a Uint8Array, an ArrayBufferView, an ArrayBuffer or a string, got ${describe(input)}`,
  );
}

/** UTF-8 of a well-formed string (BLAKE3's other implementations hash `&str`/`str`, which cannot hold a lone surrogate). */
export function utf8(s: string, name: string): Uint8Array {
  if (!isWellFormed(s)) {
    const at = LONE_SURROGATE.exec(s)!.index;
    throw new TypeError(
      `${name} must be a well-formed string: a lone surrogate (at index ${at}) has no UTF-8, got a string of length ${s.length}`,
    );
  }
  return (encoder ??= new TextEncoder()).encode(s);
}

/** A surrogate code unit not part of a pair: in a `u` regex a pair is one code point, not two surrogates. */
const LONE_SURROGATE = /\p{Surrogate}/u;

/** String.prototype.isWellFormed (ES2024; Node 20, every current browser), else the regex. */
const isWellFormed: (s: string) => boolean =
  typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === 'function'
    ? (s) => (s as unknown as { isWellFormed(): boolean }).isWellFormed()
    : (s) => !LONE_SURROGATE.test(s);

function isArrayBuffer(value: unknown): value is ArrayBufferLike {
  const tag = Object.prototype.toString.call(value);
  return tag === '[object ArrayBuffer]' || tag === '[object SharedArrayBuffer]';
}

/** Reads 32 little-endian bytes as 8 words. */
export function wordsFromBytes(bytes: Uint8Array, out: Uint32Array = new Uint32Array(8)): Uint32Array {
  for (let i = 0; i < out.length; i++) {
    const j = 4 * i;
    out[i] = bytes[j] | (bytes[j + 1] << 8) | (bytes[j + 2] << 16) | (bytes[j + 3] << 24);
  }
  return out;
}

/** Writes `n` bytes of `words` (little-endian) to `out` at `outPos`, starting at byte `from` of the words. */
export function wordsToBytes(words: Uint32Array, from: number, out: Uint8Array, outPos: number, n: number): void {
  for (let i = 0; i < n; i++) {
    const b = from + i;
    out[outPos + i] = words[b >>> 2] >>> ((b & 3) << 3);
  }
}

/**
 * A Uint32Array over the `len` bytes of `bytes` from `pos` when its words can be read in place
 * (little-endian host, 4-byte aligned start), else undefined. Word `i` of the view is byte `pos + 4 * i`.
 */
export function alignedWords(bytes: Uint8Array, pos: number, len: number): Uint32Array | undefined {
  if (!LITTLE_ENDIAN || ((bytes.byteOffset + pos) & 3) !== 0) return undefined;
  return new Uint32Array(bytes.buffer, bytes.byteOffset + pos, len >>> 2);
}

/** Byte-swaps `n` bytes of `bytes` in 4-byte groups, so big-endian hosts read words as little-endian. */
export function swapWords(bytes: Uint8Array, n: number): void {
  for (let i = 0; i < n; i += 4) {
    const a = bytes[i],
      b = bytes[i + 1];
    bytes[i] = bytes[i + 3];
    bytes[i + 1] = bytes[i + 2];
    bytes[i + 2] = b;
    bytes[i + 3] = a;
  }
}
