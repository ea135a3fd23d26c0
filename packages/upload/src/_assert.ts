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

/** A non-negative safe integer, e.g. an offset into a file. */
export function anOffset(value: unknown, name: string): number {
  if (typeof value !== 'number') throw new TypeError(`${name} must be a number, got ${describe(value)}`);
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
  return value;
}

export function aUint8Array(value: unknown, name: string): Uint8Array {
  if (!(value instanceof Uint8Array)) throw new TypeError(`${name} must be a Uint8Array, got ${describe(value)}`);
  return value;
}

export function aString(value: unknown, name: string): string {
  if (typeof value !== 'string') throw new TypeError(`${name} must be a string, got ${describe(value)}`);
  return value;
}
