import type { Algorithm, Candidate, CallStyle, Reference } from './candidate.ts';

/** The outcome of checking one implementation's digest before it is timed. */
export interface Verification {
  readonly mode: CallStyle;
  readonly candidate: string;
  readonly size: number;
  readonly ok: boolean;
  /** Why it failed: the wrong digest, or the error thrown. */
  readonly detail?: string;
}

function hex(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += b.toString(16).padStart(2, '0');
  return s;
}

/**
 * Runs `hashOnce` and compares with the reference digest. Any mismatch or exception marks the
 * cell as unmeasurable: a fast wrong answer must never appear as a number.
 */
export async function verifyCell(
  candidate: Candidate,
  mode: CallStyle,
  size: number,
  hashOnce: () => Uint8Array,
  expected: (algorithm: Algorithm) => Promise<Uint8Array>,
): Promise<Verification> {
  const base = { mode, candidate: candidate.id, size };
  try {
    candidate.select?.();
    const actual = hashOnce();
    const want = await expected(candidate.algorithm);
    if (hex(actual) === hex(want)) return { ...base, ok: true };
    return { ...base, ok: false, detail: `digest ${hex(actual)}, expected ${hex(want)}` };
  } catch (e) {
    return { ...base, ok: false, detail: `threw ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}` };
  }
}

/** Reference digests per algorithm for one input, computed at most once each. */
export function referenceCache(reference: Reference, input: Uint8Array): (algorithm: Algorithm) => Promise<Uint8Array> {
  const cache = new Map<Algorithm, Promise<Uint8Array>>();
  return (algorithm) => {
    let p = cache.get(algorithm);
    if (!p) {
      p = Promise.resolve(reference(algorithm, input));
      cache.set(algorithm, p);
    }
    return p;
  };
}
