import { abytes } from './_assert.js';

/**
 * Whether `a` and `b` hold the same bytes, in time that depends only on their lengths, not on
 * where they differ: a digest compared with a keyed one is a MAC check, and a comparison that
 * stops at the first difference tells an attacker how much of a forgery is right. Arrays of
 * different lengths are unequal at once (a length is no secret).
 */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  const x = abytes(a, 'a');
  const y = abytes(b, 'b');
  if (x.length !== y.length) return false;
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= x[i] ^ y[i];
  return diff === 0;
}
