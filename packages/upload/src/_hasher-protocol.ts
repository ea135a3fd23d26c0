// What the page and the hashing worker say to each other through comlink: types only, so both
// sides import it without pulling in the other's code.
import type { Checkpoint } from './checkpoint.js';
import type { UploadHasherOpts } from './upload-hasher.js';

/**
 * The hasher's state after a call: the offset taken and the checkpoint at or below it. Every
 * answer carries it, so saving checkpoints costs no message of its own.
 */
export type HasherState = { offset: number; checkpoint: Checkpoint };

export interface HasherWorkerApi {
  /** Starts a new hasher (replacing any other), resuming from opts.checkpoint if given. */
  open(opts: UploadHasherOpts): HasherState;
  /** UploadHasher.write. */
  write(offset: number, bytes: Uint8Array): HasherState;
  digest(dkLen: number): Uint8Array;
}
