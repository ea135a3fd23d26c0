/** Joins pieces whose total length is known into one array. */
export function concatBytes(pieces: readonly Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let pos = 0;
  for (const piece of pieces) {
    out.set(piece, pos);
    pos += piece.length;
  }
  return out;
}
