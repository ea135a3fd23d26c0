// What the page and the hashing worker say to each other through comlink: types and one string,
// so both sides import it without pulling in the other's code.
import type { Checkpoint, CheckpointState } from './checkpoint.js';
import type { UploadHasherOpts } from './upload-hasher.js';

/**
 * The hasher's state after a call: the offset taken, the checkpoint at or below it, and the
 * outcome of `expect` (UploadHasher.confirmed). Every answer carries it, so saving checkpoints
 * costs no message of its own.
 */
export type HasherState = { offset: number; checkpoint: Checkpoint; confirmed: boolean | undefined };

/** The state after expectCheckpoint, and the offset the input is checked at (undefined: not checked). */
export type ExpectingState = HasherState & { expecting: number | undefined };

/**
 * What the hashing worker posts once it serves calls: the proof that its script loaded and ran,
 * as opposed to an 'error' event from a script that did not. comlink ignores it (it has no id).
 */
export const HASHER_READY = 'blake3-web/upload: hasher ready';

/** Calls are answered in the order they were sent, each after the ones before it have run. */
export interface HasherWorkerApi {
  /** Starts a new hasher (replacing any other), resuming from opts.checkpoint if given. */
  open(opts: UploadHasherOpts): Promise<HasherState>;
  /** UploadHasher.expect. */
  expect(state: CheckpointState): Promise<HasherState>;
  /**
   * Reads `checkpoint` (as stored, unchecked) as one of `upload` in the hasher's mode that covers
   * less than `size` bytes, and expects its state (UploadHasher.expect) unless the hasher has
   * already taken more than it covers. A checkpoint refused rejects with its CheckpointError.
   */
  expectCheckpoint(checkpoint: unknown, upload: string, size: number): Promise<ExpectingState>;
  /** UploadHasher.write. */
  write(offset: number, bytes: Uint8Array): Promise<HasherState>;
  /** Reads the Blob (a slice of the file) and writes its bytes at `offset`. */
  read(offset: number, blob: Blob): Promise<HasherState>;
  digest(dkLen: number): Promise<Uint8Array>;
  /** Answered at once, out of order, whenever the worker's event loop is free: the liveness probe. */
  ping(): 'pong';
}
