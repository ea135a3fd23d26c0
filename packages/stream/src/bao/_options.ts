import { aSmallLog, describe } from '../_assert.js';
import { digestBytes } from '../_digest.js';
import { CV_LEN, leafLen } from './tree-shape.js';

/** Options shared by everything that reads or writes a Bao tree. */
export interface BaoTreeOpts {
  /**
   * Leaves of 2^chunkGroupLog chunks instead of single chunks (default 0, the Bao 0.13 format).
   * 4 gives 16 KiB leaves and an outboard 16 times smaller; the hash is still `blake3(content)`,
   * but encodings with a value above 0 are not readable by `bao` 0.13.
   */
  chunkGroupLog?: number;
}

/** The largest leaf is 2^16 chunks (64 MiB): the decoder holds one leaf in memory. */
const MAX_GROUP_LOG = 16;
/** The longest a verifier may wait for a subtree: 2^20 chunks (1 GiB). */
export const MAX_BATCH_LOG = 20;

export function resolveLeafBytes(opts: BaoTreeOpts | undefined, name = 'opts'): number {
  if (opts === undefined) return leafLen(0);
  if (typeof opts !== 'object' || opts === null)
    throw new TypeError(`${name} must be an object, got ${describe(opts)}`);
  return leafLen(aSmallLog(opts.chunkGroupLog, `${name}.chunkGroupLog`, MAX_GROUP_LOG));
}

/** A Bao hash: 32 bytes, or 64 hex digits. */
export function baoHash(hash: unknown, name = 'hash'): Uint8Array {
  const bytes = digestBytes(hash, name);
  if (bytes.length !== CV_LEN)
    throw new RangeError(`${name} must be ${CV_LEN} bytes (a Bao hash), got ${bytes.length}`);
  return bytes;
}
