// The verifying wrapper for any @tus/server DataStore, and what goes with it.
export {
  Blake3Store,
  LEAF_RUNS_KEY_SUFFIX,
  MID_REQUEST_KEY_SUFFIX,
  OUTBOARD_SUFFIX,
  MID_REQUEST_STATES,
  STATE_REFUSED_EVENT,
  VERIFIED_KEY_SUFFIX,
  type Blake3StoreOpts,
  type Blake3StoreOutboard,
  type HashRecord,
  type StoredBytes,
} from './verifying-store.js';
export { fileStoreBytes, s3StoreBytes, s3StoreEraser } from './stored-bytes.js';
export { OutboardUnavailableError } from './_outboard-code.js';
export { NativeHasherError, type HasherBackend, type HasherChoice } from './_subtree-hasher.js';
export {
  MISMATCH_STATUS,
  VERIFIED_HEADER,
  verifyBlake3,
  type VerifyBlake3Opts,
  type VerifyingStore,
} from './verify-blake3.js';
export { ROOT_HEADER } from './tus.js';
export { SHARED_STATE_FORMAT, SHARED_STATE_VERSION, type SharedStateRecord } from './_shared-state.js';
