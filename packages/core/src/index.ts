export { blake3, Hasher } from './blake3.js';
export { OutputReader } from './_output-reader.js';
export type { Blake3Opts } from './_options.js';
export type { Input } from './_bytes.js';
export { backend, ready, setBackend, isBackendAvailable, type Backend, type ReadyOptions } from './backend.js';
export { bytesToHex, hexToBytes } from './hex.js';
export { constantTimeEqual } from './constant-time-equal.js';
export { hashMany, hashManyInto } from './hash-many.js';
export { BLOCK_LEN, CHUNK_LEN, KEY_LEN, OUT_LEN } from './_constants.js';
