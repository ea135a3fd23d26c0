// The workbox package's boundary checks; the shared ones come from the core (see its `_assert.ts`).
import { anInteger, anumber, describe } from '@blake3-web/core/_assert';

export { anInteger, anumber, describe };

/** An object (not null, not an array): an options bag or a manifest. */
export function anObject(value: unknown, name: string): object {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new TypeError(`${name} must be an object, got ${describe(value)}`);
  return value;
}

/** A function: a resolver, a callback, a `fetch` (its type as the caller declared it). */
export function aFunction<F>(value: F, name: string): F {
  if (typeof value !== 'function') throw new TypeError(`${name} must be a function, got ${describe(value)}`);
  return value;
}

/** One of a few strings: another string is a RangeError naming them, anything else a TypeError. */
export function oneOf<T extends string>(value: unknown, name: string, allowed: readonly T[]): T {
  const list = allowed.map((a) => `'${a}'`).join(' or ');
  if (typeof value !== 'string') throw new TypeError(`${name} must be ${list}, got ${describe(value)}`);
  if (!allowed.includes(value as T)) throw new RangeError(`${name} must be ${list}, got ${shown(value)}`);
  return value as T;
}

/** A string. */
export function aString(value: unknown, name: string): string {
  if (typeof value !== 'string') throw new TypeError(`${name} must be a string, got ${describe(value)}`);
  return value;
}

/**
 * A URL given as a string (relative ones resolved against `base`) or a URL object, as a new URL.
 * A string that is no URL is a TypeError, as `new URL` makes it, but one that names the argument.
 */
export function aUrl(value: unknown, name: string, base?: string): URL {
  if (value instanceof URL) return new URL(value.href);
  if (typeof value !== 'string') throw new TypeError(`${name} must be a URL or a string, got ${describe(value)}`);
  try {
    return new URL(value, base);
  } catch {
    throw new TypeError(
      `${name} must be a URL${base === undefined ? '' : ` (relative to ${base})`}, got ${shown(value)}`,
    );
  }
}

/** A Request of this realm. */
export function aRequest(value: unknown, name: string): Request {
  if (!(value instanceof Request)) throw new TypeError(`${name} must be a Request, got ${describe(value)}`);
  return value;
}

/** A string as it arrived, quoted, cut at 80 characters. */
export function shown(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}...` : value);
}
