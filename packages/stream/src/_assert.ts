// The stream package's boundary checks; the shared ones come from the core (see its `_assert.ts`).
import { anInteger, anumber, describe } from '@blake3-web/core/_assert';

export { anInteger, anumber, describe };

// The engine's own accessors of typed arrays. They read what the engine holds for an array (its
// internal slots), which neither a subclass, nor own properties, nor another realm can change.
const TYPED_ARRAY: object = Object.getPrototypeOf(Uint8Array.prototype);
const accessor = <T>(key: PropertyKey) =>
  Object.getOwnPropertyDescriptor(TYPED_ARRAY, key)!.get as (this: unknown) => T;
const typedArrayName = accessor<string | undefined>(Symbol.toStringTag);
const bufferOf = accessor<ArrayBufferLike>('buffer');
const byteOffsetOf = accessor<number>('byteOffset');
const byteLengthOf = accessor<number>('byteLength');
// Throws a TypeError for an array that cannot be read (its buffer detached, or shrunk below its end).
const typedArrayAt = (TYPED_ARRAY as { at: (this: unknown, i: number) => unknown }).at;

/**
 * A Uint8Array, also one from another realm (an iframe, a worker's structured clone) or a
 * subclass such as Node's Buffer: what the engine holds, not what the value says of itself
 * (`Symbol.toStringTag` and `instanceof` can both be faked).
 */
export function isUint8Array(value: unknown): value is Uint8Array {
  return typedArrayName.call(value) === 'Uint8Array';
}

/**
 * The bytes of a Uint8Array as a new plain Uint8Array of this realm over the same memory (no
 * copy), read through the engine's own accessors: code that reads, views or copies the result
 * runs the engine's methods, never the value's own (a subclass's `subarray`, `slice`, getters or
 * species constructor, Node's Buffer whose `slice` is a view), so the bytes hashed are the bytes
 * passed on. A view that cannot be read, which would read as empty, is a TypeError.
 */
export function aUint8Array(value: unknown, name: string): Uint8Array {
  if (!isUint8Array(value)) throw new TypeError(`${name} must be a Uint8Array, got ${describe(value)}`);
  return viewOf(value, name);
}

/** Stream chunks must be Uint8Arrays (as `fetch` bodies and `Blob.stream()` give); anything else is a TypeError. */
export function aChunk(chunk: unknown): Uint8Array {
  if (!isUint8Array(chunk)) throw new TypeError(`stream chunks must be Uint8Arrays, got ${describe(chunk)}`);
  return viewOf(chunk, 'a stream chunk');
}

const arrayBufferByteLength = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength')!.get!;

/**
 * Whether `buffer` is an ArrayBuffer (of any realm) and not a SharedArrayBuffer, whose bytes
 * another thread may change at any time: asked of the engine, not of the buffer's prototype.
 */
export function isUnshared(buffer: ArrayBufferLike): boolean {
  try {
    arrayBufferByteLength.call(buffer);
    return true;
  } catch {
    return false;
  }
}

function viewOf(value: Uint8Array, name: string): Uint8Array {
  const length = byteLengthOf.call(value);
  if (length === 0) {
    try {
      typedArrayAt.call(value, 0);
    } catch {
      throw new TypeError(`${name} cannot be read: its ArrayBuffer was detached (transferred) or shrunk`);
    }
  }
  return new Uint8Array(bufferOf.call(value), byteOffsetOf.call(value), length);
}

/** An optional exponent from 0 to `max`; 0 when absent. */
export function aSmallLog(value: unknown, name: string, max: number): number {
  return value === undefined ? 0 : anInteger(value, name, 0, max);
}
