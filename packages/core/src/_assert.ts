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

/** A non-negative safe integer, e.g. a length. */
export function anumber(value: unknown, name: string): number {
  if (typeof value !== 'number') throw new TypeError(`${name} must be a number, got ${describe(value)}`);
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
  }
  return value;
}

/** A non-negative integer given as a number or a bigint, returned as a bigint. */
export function auint(value: unknown, name: string): bigint {
  if (typeof value === 'bigint') {
    if (value < 0n) throw new RangeError(`${name} must not be negative, got ${value}n`);
    return value;
  }
  return BigInt(anumber(value, name));
}

/** A byte array of exactly `length` bytes (any ArrayBufferView is accepted and viewed as bytes). */
export function abytes(value: unknown, name: string, length?: number): Uint8Array {
  if (!ArrayBuffer.isView(value)) {
    throw new TypeError(`${name} must be a Uint8Array, got ${describe(value)}`);
  }
  const bytes = value instanceof Uint8Array ? value : new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  if (length !== undefined && bytes.length !== length) {
    throw new RangeError(`${name} must be ${length} bytes, got ${bytes.length}`);
  }
  return bytes;
}
