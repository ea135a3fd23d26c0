/**
 * Boundary checks: TypeError for a wrong type, RangeError for a bad value; every message names
 * the argument and says what arrived. Each package's `_assert.ts` holds its own checks and
 * re-exports these; the other packages (worker, stream, upload, workbox, download, native) reach this module through the
 * `@blake3-web/core/_assert` subpath, which is internal: not documented, not covered by semver.
 * @module
 */

/** A short description of a value for error messages: its type, and its size where it has one. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an Array of length ${value.length}`;
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name} of ${value.byteLength} bytes`;
  if (typeof value === 'object') return `an object (${Object.prototype.toString.call(value).slice(8, -1)})`;
  if (typeof value === 'string') return `a string of length ${value.length}`;
  if (typeof value === 'bigint') return `${value}n`;
  return typeof value === 'number' ? String(value) : typeof value;
}

/**
 * The most bytes one call returns or allocates as a single output (`dkLen`, `reader.read(n)`):
 * 2^30, an array every engine allocates. Longer outputs come from `reader()` in pieces; the
 * output stream itself runs to 2^64 bytes.
 */
export const MAX_OUTPUT_LEN: number = 2 ** 30;

/** A non-negative safe integer, e.g. a length. */
export function anumber(value: unknown, name: string): number {
  if (typeof value !== 'number') throw new TypeError(`${name} must be a number, got ${describe(value)}`);
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative safe integer, got ${value}`);
  }
  return value;
}

/** An integer in [min, max]. */
export function anInteger(value: unknown, name: string, min: number, max: number): number {
  if (typeof value !== 'number') throw new TypeError(`${name} must be a number, got ${describe(value)}`);
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new RangeError(`${name} must be an integer from ${min} to ${max}, got ${value}`);
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

/** An output length: a non-negative integer up to MAX_OUTPUT_LEN. */
export function anOutputLen(value: unknown, name: string): number {
  const n = anumber(value, name);
  if (n > MAX_OUTPUT_LEN) {
    throw new RangeError(
      `${name} must be at most 2^30 (${MAX_OUTPUT_LEN}) bytes; longer outputs come from reader(), got ${n}`,
    );
  }
  return n;
}

/** A byte array of exactly `length` bytes (any ArrayBufferView is accepted and viewed as bytes). */
export function abytes(value: unknown, name: string, length?: number): Uint8Array {
  if (!ArrayBuffer.isView(value)) {
    throw new TypeError(`${name} must be a Uint8Array, got ${describe(value)}`);
  }
  const bytes = viewBytes(value, name);
  if (length !== undefined && bytes.length !== length) {
    throw new RangeError(`${name} must be ${length} bytes, got ${bytes.length}`);
  }
  return bytes;
}

/**
 * Any view as bytes, without copying; a view that cannot be read (its buffer detached, or resized
 * below the view's end) is a TypeError naming `name`. Only empty views are probed for a Uint8Array:
 * an unreadable one always reads as empty, so 16-64 byte inputs hash as fast as before.
 */
export function viewBytes(view: ArrayBufferView, name: string): Uint8Array {
  if (isPlainBytes(view)) {
    if (view.length === 0) aReadableView(view, name);
    return view;
  }
  // Any other view (a subclass, another realm's array, a DataView) is read through the engine's
  // own getters: a subclass may override length, subarray or buffer, and must hash as its bytes.
  const [buffer, byteOffset, byteLength] = gettersOf(view);
  aReadableView(view, name);
  return new Uint8Array(buffer.call(view), byteOffset.call(view), byteLength.call(view));
}

/**
 * A Uint8Array (or Node's Buffer) of this realm, whose length and methods are the engine's own:
 * the fast path that hashes it as it is.
 */
export function isPlainBytes(value: unknown): value is Uint8Array {
  if (!(value instanceof Uint8Array)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Uint8Array.prototype || proto === NODE_BUFFER;
}

// Node's Buffer (or a bundled polyfill of it) keeps the meaning of what hashing reads.
const NODE_BUFFER: unknown = (globalThis as { Buffer?: { prototype: unknown } }).Buffer?.prototype;

const TYPED_ARRAY: object = Object.getPrototypeOf(Uint8Array.prototype);
const getter = (proto: object, key: PropertyKey) =>
  Object.getOwnPropertyDescriptor(proto, key)!.get as (this: ArrayBufferView) => never;
const typedArrayTag = getter(TYPED_ARRAY, Symbol.toStringTag);

/** The engine's own `buffer`, `byteOffset` and `byteLength` getters, of typed arrays and of DataViews. */
type ViewGetters = readonly [
  buffer: (this: ArrayBufferView) => ArrayBufferLike,
  byteOffset: (this: ArrayBufferView) => number,
  byteLength: (this: ArrayBufferView) => number,
];
const viewGetters = (proto: object) =>
  (['buffer', 'byteOffset', 'byteLength'] as const).map((key) => getter(proto, key)) as unknown as ViewGetters;
const TYPED_ARRAY_GETTERS = viewGetters(TYPED_ARRAY);
const DATA_VIEW_GETTERS = viewGetters(DataView.prototype);

/** The getters that read `view` as the engine knows it (a typed array or a DataView, of any realm). */
function gettersOf(view: ArrayBufferView): ViewGetters {
  return typedArrayTag.call(view) ? TYPED_ARRAY_GETTERS : DATA_VIEW_GETTERS;
}

/**
 * Throws when `buffer` was detached (transferred, e.g. posted to a worker): its views then read as
 * empty, and would hash as the empty input. A detached buffer has no bytes, so callers with a
 * non-empty view never get here.
 */
export function aLiveBuffer(buffer: ArrayBufferLike, name: string): void {
  if (buffer.byteLength === 0 && isDetached(buffer)) throw detachedError(name);
}

function detachedError(name: string): TypeError {
  return new TypeError(`${name} is a view of a detached ArrayBuffer (transferred), got no bytes`);
}

// The engine's own check: %TypedArray%.prototype.at and DataView's byteLength throw a TypeError for
// a view of a detached buffer or one past the end of its shrunk buffer, and only then.
const typedArrayAt = (TYPED_ARRAY as { at: (this: ArrayBufferView, i: number) => unknown }).at;

/**
 * Throws when `view` cannot be read: its buffer was detached, or it is a resizable ArrayBuffer that
 * shrank below the view's end. Such a view reads as empty (length and offset 0), and would hash as
 * the empty input.
 */
function aReadableView(view: ArrayBufferView, name: string): void {
  const getters = gettersOf(view);
  const buffer = getters[0].call(view);
  if (buffer.byteLength === 0 && isDetached(buffer)) throw detachedError(name);
  try {
    // For a typed array, `at` checks the view against its buffer; for a DataView, byteLength does.
    if (getters === TYPED_ARRAY_GETTERS) typedArrayAt.call(view, 0);
    else getters[2].call(view);
  } catch {
    throw new TypeError(`${name} is a view past the end of its ArrayBuffer, shrunk to ${buffer.byteLength} bytes`);
  }
}

function isDetached(buffer: ArrayBufferLike): boolean {
  const detached = (buffer as { detached?: unknown }).detached;
  if (typeof detached === 'boolean') return detached;
  // No ArrayBuffer.prototype.detached (Node 20, engines before 2024): a view can be made over
  // any buffer except a detached one.
  try {
    new Uint8Array(buffer, 0, 0);
    return false;
  } catch {
    return true;
  }
}
