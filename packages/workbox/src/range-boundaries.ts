import type { RangeSpec } from './parse-range.js';

/**
 * The content bytes [first, last] that a range asks for in content of `total` bytes (RFC 9110,
 * section 14.1.2): a suffix counts from the end, a last byte past the end is capped. Undefined
 * when no byte of the range is in the content, which is answered with a 416.
 */
export function rangeBoundaries(spec: RangeSpec, total: number): { first: number; last: number } | undefined {
  const first = 'suffix' in spec ? Math.max(0, total - spec.suffix) : spec.first;
  const last = 'suffix' in spec ? total - 1 : Math.min(spec.last ?? total - 1, total - 1);
  if (first >= total || ('suffix' in spec && spec.suffix === 0)) return undefined;
  return { first, last };
}
