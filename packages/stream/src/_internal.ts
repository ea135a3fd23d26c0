/**
 * The verification rules that other @blake3-web packages apply too, so that each rule has one
 * home: the expected-digest parser and its 16-byte minimum, the mismatch error, the Bao length
 * header, the shape of a Bao tree with the merge of its leaves' chaining values, and the proof
 * of a whole outboard against a root. Reached through the `@blake3-web/stream/_internal` subpath, which is
 * internal: not part of the documented API, not covered by semver.
 * @module
 */
export { MIN_DIGEST_BYTES, digestMismatch, expectedDigest } from './_digest.js';
export {
  CV_LEN,
  HEADER_LEN,
  leafCount,
  leafLen,
  outboardSubtreeLen,
  PARENT_LEN,
  preOrder,
  readLengthHeader,
  writeHeader,
} from './bao/tree-shape.js';
export { rootHash, treeLevels, writePreOrder } from './bao/_tree-levels.js';
export { proveOutboard, provesFinalLeaf, type ProvenTree } from './bao/_prove-outboard.js';
export { concatBytes } from './bao/_concat.js';
