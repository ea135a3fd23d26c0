// What the page and the hashing worker say to each other through comlink: types only, so both
// sides import it without pulling in the other's code.
import type { Checkpoint } from './checkpoint.js';
import type { UploadHasherOpts } from './upload-hasher.js';

/**
 * The hasher's state after a call: the offset taken and the checkpoint at or below it. Every
 * answer carries it, so saving checkpoints costs no message of its own.
 */
export type HasherState = { offset: number; checkpoint: Checkpoint };

/** Calls are answered in the order they were sent, each after the ones before it have run. */
export interface HasherWorkerApi {
  /** Starts a new hasher (replacing any other), resuming from opts.checkpoint if given. */
  open(opts: UploadHasherOpts): Promise<HasherState>;
  /** UploadHasher.write. */
  write(offset: number, bytes: Uint8Array): Promise<HasherState>;
  /** Reads the Blob (a slice of the file) and writes its bytes at `offset`. */
  read(offset: number, blob: Blob): Promise<HasherState>;
  digest(dkLen: number): Promise<Uint8Array>;
}
