/**
 * Where a download keeps its verified bytes and the record of which groups are verified. The
 * engine writes only bytes it has verified, and asks the store to record a group only after the
 * group's bytes were written: `commit` makes every write before it durable first, then appends
 * to the record, so that a crash at any instant never leaves a group recorded whose bytes are not
 * stored. A record is a claim, not a proof: the engine checks recorded groups against the
 * outboard again when it opens a download.
 * @module
 */

/** Consecutive groups `first` .. `first + count - 1` (a group is one leaf of the Bao tree). */
export type GroupRun = { readonly first: number; readonly count: number };

/** What a download's stored bytes are: the content's size and the tree's leaf size. */
export type ContentShape = {
  /** Content bytes. */
  readonly size: number;
  /** Leaves (groups) of 2^chunkGroupLog chunks of 1 KiB. */
  readonly chunkGroupLog: number;
};

/** A stored download as `list()` reports it. */
export type StoredDownloadInfo = ContentShape & {
  /** The BLAKE3 root, lowercase hex. */
  readonly root: string;
  /** Content bytes recorded as verified. */
  readonly recordedBytes: number;
  /** Whether every group is recorded. */
  readonly complete: boolean;
};

/** One download in a store, opened by `DownloadStore.open`. */
export interface StoredContent {
  /** The groups the record holds, as it was when opened (unchecked: the engine checks them). */
  readonly recorded: readonly GroupRun[];
  /** The outboard kept beside the content, if one was saved. */
  readOutboard(): Promise<Uint8Array | undefined>;
  /** Keeps the outboard beside the content. */
  writeOutboard(outboard: Uint8Array): Promise<void>;
  /**
   * Writes verified bytes at content offset `offset` (not recorded until `commit`). Nothing of
   * `bytes` may be kept once the returned promise settles: the download reads into them again.
   */
  write(offset: number, bytes: Uint8Array): Promise<void>;
  /**
   * Makes every `write` before it durable, then appends `runs` to the record. A failure records
   * nothing; running out of room is a `DownloadQuotaError`.
   */
  commit(runs: readonly GroupRun[]): Promise<void>;
  /** Replaces the record by `runs` (groups that failed their check are left out), atomically. */
  rewriteRecord(runs: readonly GroupRun[]): Promise<void>;
  /** Content bytes [offset, offset + length), as stored. */
  read(offset: number, length: number): Promise<Uint8Array>;
  /** The whole content as a Blob (a File where the store has files), once every group is stored. */
  blob(): Promise<Blob>;
  /** Releases what the store holds open for this download. */
  close(): Promise<void>;
}

/** A place for downloads: one per root (the BLAKE3 hash, lowercase hex). */
export interface DownloadStore {
  /**
   * Opens the download of `root`, creating it if absent. One stored with another shape (another
   * size or chunk group size) is emptied first.
   */
  open(root: string, shape: ContentShape): Promise<StoredContent>;
  /** Every download in the store. */
  list(): Promise<StoredDownloadInfo[]>;
  /** Deletes the download of `root`; true if there was one. */
  remove(root: string): Promise<boolean>;
}
