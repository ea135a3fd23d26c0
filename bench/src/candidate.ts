/** What a benchmarked implementation computes; decides which reference checks its output. */
export type Algorithm = 'blake3' | 'sha256';

/** How the input reaches the implementation. */
export type CallStyle = 'one-shot' | 'incremental';

/**
 * One implementation as the runner sees it: plain synchronous functions, so that the same runner
 * works in Node and in a browser page. Asynchronous setup (WASM instantiation) happens before
 * the candidate is built.
 */
export interface Candidate {
  /** Stable key in the JSON results. */
  readonly id: string;
  /** Row name in the tables. */
  readonly label: string;
  readonly algorithm: Algorithm;
  /** Runs before every verification, calibration and sample: e.g. selects a backend. */
  readonly select?: () => void;
  /** Hashes the whole input in one call and returns the 32-byte digest; absent for a row that is incremental only. */
  readonly oneShot?: (input: Uint8Array) => Uint8Array;
  /** Starts a fresh state, feeds it the pieces in order and returns the 32-byte digest. */
  readonly incremental?: (pieces: readonly Uint8Array[]) => Uint8Array;
}

/** The digest an implementation of `algorithm` must produce for `input`. */
export type Reference = (algorithm: Algorithm, input: Uint8Array) => Uint8Array | Promise<Uint8Array>;
