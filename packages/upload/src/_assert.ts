// Boundary checks: TypeError for a wrong type, RangeError for a bad value; every message names
// the argument and says what arrived. The shared ones come from the core (see its `_assert.ts`).
import { anumber, describe } from '@blake3-web/core/_assert';

export { anumber, describe };

export function aUint8Array(value: unknown, name: string): Uint8Array {
  if (!(value instanceof Uint8Array)) throw new TypeError(`${name} must be a Uint8Array, got ${describe(value)}`);
  return value;
}

export function aString(value: unknown, name: string): string {
  if (typeof value !== 'string') throw new TypeError(`${name} must be a string, got ${describe(value)}`);
  return value;
}
