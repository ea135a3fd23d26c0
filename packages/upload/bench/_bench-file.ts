// What the upload benchmarks share: the file they upload, and how they summarise rounds.
import { writeFileSync } from 'node:fs';

/** Writes `size` bytes to `path`, byte i being i mod 251 (a pattern no slice boundary lines up with). */
export function writePaintedFile(path: string, size: number): void {
  const pattern = new Uint8Array(251 * 4096).map((_, i) => i % 251);
  writeFileSync(
    path,
    Buffer.concat(Array.from({ length: Math.ceil(size / pattern.length) }, () => pattern)).subarray(0, size),
  );
}

/** The middle value (of an even count, the later of the two middle ones); NaN for none. */
export const median = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] : NaN);
