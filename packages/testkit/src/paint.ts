/** The official vectors' input: bytes 0, 1, ..., 250, 0, 1, ... */
export function paint(length: number, offset = 0): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = (i + offset) % 251;
  return out;
}
