export { UploadHasher, type UploadHasherOpts } from './upload-hasher.js';
export {
  CheckpointError,
  readCheckpoint,
  CHECKPOINT_FORMAT,
  CHECKPOINT_VERSION,
  type Checkpoint,
  type CheckpointState,
} from './checkpoint.js';
export { WorkerHasher, type HasherEndpoint } from './worker-hasher.js';
export { startHashWorker } from './_default-worker.js';
export { serveHasher } from './serve-hasher.js';
export { indexedDbCheckpointStore, type CheckpointStore } from './checkpoint-store.js';
export {
  blake3Tus,
  ROOT_HEADER,
  type Blake3Tus,
  type Blake3TusDiscard,
  type Blake3TusOpts,
  type TusFileSource,
  type TusRequest,
  type TusResponse,
  type TusSlice,
} from './tus.js';
