// Boundary checks: TypeError for a wrong type, RangeError for a bad value; every message names
// the argument and says what arrived.

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an Array of length ${value.length}`;
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name} of ${value.byteLength} bytes`;
  if (typeof value === 'object') return `an object (${Object.prototype.toString.call(value).slice(8, -1)})`;
  if (typeof value === 'string') return `a string of length ${value.length}`;
  if (typeof value === 'bigint') return `${value}n`;
  return typeof value === 'number' ? String(value) : typeof value;
}

/** An integer in [min, max]. */
export function anInteger(value: unknown, name: string, min: number, max: number): number {
  if (typeof value !== 'number') throw new TypeError(`${name} must be a number, got ${describe(value)}`);
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new RangeError(`${name} must be an integer from ${min} to ${max}, got ${value}`);
  }
  return value;
}

/** A non-empty byte range [start, end) inside an input of `size` bytes. */
export function aRange(start: unknown, end: unknown, size: number): void {
  const s = anInteger(start, 'start', 0, Number.MAX_SAFE_INTEGER);
  const e = anInteger(end, 'end', 0, Number.MAX_SAFE_INTEGER);
  if (s >= e || e > size) throw new RangeError(`the range [start, end) must be non-empty and within the ${size}-byte input, got [${s}, ${e})`);
}

/** Whether `value` is a Blob, also one from another realm (an iframe's). */
export function isBlob(value: unknown): value is Blob {
  if (typeof Blob !== 'undefined' && value instanceof Blob) return true;
  const tag = Object.prototype.toString.call(value);
  return (tag === '[object Blob]' || tag === '[object File]') && typeof (value as Blob).slice === 'function';
}

export function aFunction<F>(value: unknown, name: string): F {
  if (typeof value !== 'function') throw new TypeError(`${name} must be a function, got ${describe(value)}`);
  return value as F;
}
