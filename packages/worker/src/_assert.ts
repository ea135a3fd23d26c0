// The worker's boundary checks; the shared ones come from the core (see its `_assert.ts`).
import { anInteger, describe } from '@blake3-web/core/_assert';

export { anInteger, describe };

/** A non-empty byte range [start, end) inside an input of `size` bytes. */
export function aRange(start: unknown, end: unknown, size: number): void {
  const s = anInteger(start, 'start', 0, Number.MAX_SAFE_INTEGER);
  const e = anInteger(end, 'end', 0, Number.MAX_SAFE_INTEGER);
  if (s >= e || e > size)
    throw new RangeError(
      `the range [start, end) must be non-empty and within the ${size}-byte input, got [${s}, ${e})`,
    );
}

/** Whether `value` is a Blob, also one from another realm (an iframe's). */
export function isBlob(value: unknown): value is Blob {
  if (typeof Blob !== 'undefined' && value instanceof Blob) return true;
  const tag = Object.prototype.toString.call(value);
  return (tag === '[object Blob]' || tag === '[object File]') && typeof (value as Blob).slice === 'function';
}

/** A callback, returned typed as the caller wants it. */
export function aFunction<F>(value: unknown, name: string): F {
  if (typeof value !== 'function') throw new TypeError(`${name} must be a function, got ${describe(value)}`);
  return value as F;
}
