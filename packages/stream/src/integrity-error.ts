/** The content did not hash to the expected BLAKE3 digest (or ended before all of it was seen). */
export class IntegrityError extends Error {
  readonly code = 'ERR_BLAKE3_MISMATCH';
  /** Expected digest, lowercase hex. */
  readonly expected: string;
  /**
   * Digest of the bytes actually received, lowercase hex. Empty when it is withheld (a keyed
   * mismatch: the tag of the received bytes would be a valid MAC for them) or when there is
   * none (a Bao encoding that ends early or runs on).
   */
  readonly actual: string;

  constructor(expected: string, actual: string, message = `BLAKE3 mismatch: expected ${expected}, got ${actual}`) {
    super(message);
    this.name = 'IntegrityError';
    this.expected = expected;
    this.actual = actual;
  }
}
