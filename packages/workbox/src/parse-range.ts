import { describe } from './_assert.js';

/** A single byte range, as the request asked for it (RFC 9110, section 14.1.2). */
export type RangeSpec = { first: number; last?: number } | { suffix: number };

/** `bytes=a-b`, `bytes=a-` or `bytes=-n`; anything else (other units, several ranges) is undefined. */
export function parseRange(header: string | null): RangeSpec | undefined {
  if (header !== null && typeof header !== 'string')
    throw new TypeError(`header must be a string or null, got ${describe(header)}`);
  const m = header === null ? null : /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') return { suffix: Number(m[2]) };
  const first = Number(m[1]);
  if (m[2] === '') return { first };
  const last = Number(m[2]);
  return last < first ? undefined : { first, last };
}
