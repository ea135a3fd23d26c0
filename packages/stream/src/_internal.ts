/**
 * The verification rules that other @blake3-web packages apply too, so that each rule has one
 * home: the expected-digest parser and its 16-byte minimum, the mismatch error, and the
 * Bao length header. Reached through the `@blake3-web/stream/_internal` subpath, which is
 * internal: not part of the documented API, not covered by semver.
 * @module
 */
export { MIN_DIGEST_BYTES, digestMismatch, expectedDigest } from './_digest.js';
export { HEADER_LEN, readLengthHeader, writeHeader } from './bao/tree-shape.js';
