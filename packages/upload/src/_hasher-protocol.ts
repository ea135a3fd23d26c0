// What the page and the hashing worker say to each other through comlink: types only, so both
// sides import it without pulling in the other's code.
import type { Checkpoint } from './checkpoint.js';
import type { UploadHasherOpts } from './upload-hasher.js';

export interface HasherWorkerApi {
  /** Starts a new hasher (replacing any other), resuming from opts.checkpoint if given; returns its offset. */
  open(opts: UploadHasherOpts): number;
  /** UploadHasher.write; returns the offset taken after it. */
  write(offset: number, bytes: Uint8Array): number;
  checkpoint(): Checkpoint;
  digest(dkLen: number): Uint8Array;
}
