export { UploadHasher, type UploadHasherOpts } from './upload-hasher.js';
export { CheckpointError, readCheckpoint, CHECKPOINT_FORMAT, CHECKPOINT_VERSION, type Checkpoint, type CheckpointState } from './checkpoint.js';
