/** Input sizes measured: one block, one chunk, then sizes where the tree and SIMD matter. */
export const SIZES: readonly number[] = [64, 1024, 16 * 1024, 64 * 1024, 1024 * 1024, 16 * 1024 * 1024];

/** Incremental mode feeds the input in pieces of this size (the last one may be shorter). */
export const UPDATE_SIZE = 64 * 1024;

/** `1 KiB`, `16 MiB`, `64 B`: sizes here are powers of two, so binary prefixes read exactly. */
export function formatSize(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} B`;
}

/** Deterministic input, byte i = i mod 251, so no two nearby blocks are equal. */
export function paintInput(length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = i % 251;
  return out;
}

/** `input` cut into consecutive views of `pieceSize` bytes (no copies). */
export function splitInput(input: Uint8Array, pieceSize: number): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  for (let pos = 0; pos < input.length; pos += pieceSize) pieces.push(input.subarray(pos, pos + pieceSize));
  return pieces;
}
