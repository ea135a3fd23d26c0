import { bytesToHex } from '@blake3-web/core';

/** The content did not hash to the expected BLAKE3 digest (or ended before all of it was seen). */
export class IntegrityError extends Error {
  readonly code = 'ERR_BLAKE3_MISMATCH';
  /** Expected digest, lowercase hex. */
  readonly expected: string;
  /**
   * Digest of the bytes actually received, lowercase hex. Empty when it is withheld (a keyed
   * mismatch: the tag of the received bytes would be a valid MAC for them) or when there is
   * none (see `corrupt`).
   */
  readonly actual: string;

  constructor(expected: string, actual: string, message = `BLAKE3 mismatch: expected ${expected}, got ${actual}`) {
    super(message);
    this.name = 'IntegrityError';
    this.expected = expected;
    this.actual = actual;
  }

  /**
   * The content or its encoding cannot be checked as a whole, so there is no digest of it to
   * report: a Bao encoding that ends early, runs on or claims an impossible length, or an answer
   * that cannot be read. `message` says which.
   */
  static corrupt(expected: Uint8Array, message: string): IntegrityError {
    return new IntegrityError(bytesToHex(expected), '', message);
  }
}
