/**
 * The errors a download ends with, besides the `TypeError`/`RangeError` of a bad argument and the
 * signal's reason on an abort.
 * @module
 */

/** What one source did wrong, in the order it happened. */
export type SourceFailure = {
  /** The source's URL. */
  readonly url: string;
  /** One line per fault, e.g. `bytes 0-1048575: answered 500`, `group 12 does not match the root`. */
  readonly faults: readonly string[];
  /** Whether the source was dropped (no more ranges went to it). */
  readonly dropped: boolean;
};

/**
 * No source could serve some range (or the outboard): every source failed it or was dropped.
 * `failures` names what each source did; the message lists the same.
 */
export class DownloadError extends Error {
  readonly code = 'ERR_DOWNLOAD_FAILED';
  readonly root: string;
  readonly failures: readonly SourceFailure[];

  constructor(root: string, why: string, failures: readonly SourceFailure[]) {
    const lines = failures.map(
      (f) => `  ${f.url}${f.dropped ? ' (dropped)' : ''}: ${f.faults.length > 0 ? f.faults.join('; ') : 'no fault'}`,
    );
    super(`download of ${root} failed: ${why}${lines.length > 0 ? `\n${lines.join('\n')}` : ''}`);
    this.name = 'DownloadError';
    this.root = root;
    this.failures = failures;
  }
}

/**
 * The store ran out of room (a full disk, an exhausted origin quota). Nothing written since the
 * last group recorded as verified is recorded: a later download of the same root goes on from
 * there once there is room.
 */
export class DownloadQuotaError extends Error {
  readonly code = 'ERR_DOWNLOAD_QUOTA';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DownloadQuotaError';
  }
}
