// The stream package's boundary checks; the shared ones come from the core (see its `_assert.ts`).
import { anInteger, anumber, describe } from '@blake3-web/core/_assert';

export { anInteger, anumber, describe };

/** A Uint8Array, also one from another realm (an iframe, a worker's structured clone): the tag, not instanceof. */
export function isUint8Array(value: unknown): value is Uint8Array {
  return Object.prototype.toString.call(value) === '[object Uint8Array]';
}

export function aUint8Array(value: unknown, name: string): asserts value is Uint8Array {
  if (!isUint8Array(value)) throw new TypeError(`${name} must be a Uint8Array, got ${describe(value)}`);
}

/** Stream chunks must be Uint8Arrays (as `fetch` bodies and `Blob.stream()` give); anything else is a TypeError. */
export function aChunk(chunk: unknown): asserts chunk is Uint8Array {
  if (!isUint8Array(chunk)) throw new TypeError(`stream chunks must be Uint8Arrays, got ${describe(chunk)}`);
}

/** An optional exponent from 0 to `max`; 0 when absent. */
export function aSmallLog(value: unknown, name: string, max: number): number {
  return value === undefined ? 0 : anInteger(value, name, 0, max);
}
