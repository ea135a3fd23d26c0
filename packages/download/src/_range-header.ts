/**
 * The Range header of a request for whole groups: what a range asked now and one asked ahead
 * (`_ranges-ahead.ts`) both send, so that one can stand for the other.
 * @module
 */

/** The Range header for groups [first, first + count), open-ended when they include the final group. */
export function rangeHeader(range: { first: number; count: number }, groupBytes: number, final: boolean): string {
  const start = range.first * groupBytes;
  return final ? `bytes=${start}-` : `bytes=${start}-${start + range.count * groupBytes - 1}`;
}
