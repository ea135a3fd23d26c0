/**
 * The BLAKE3 hash of a file fed by an uploader's own reads: bytes arrive in file order at any
 * boundaries, and bytes at offsets already seen (a request sent again) are skipped, not hashed
 * twice. Whole power-of-two subtrees are hashed as soon as more input follows them, so only the
 * last chunk (at most 1024 bytes) is ever held back, and the state at every chunk boundary is a
 * checkpoint a later hasher can resume from.
 *
 * @example
 * ```ts
 * import { blake3 } from '@blake3-web/core';
 * import { UploadHasher } from '@blake3-web/upload';
 * const file = new Uint8Array(5000);
 * const h = new UploadHasher({ upload: 'example' });
 * h.write(0, file.subarray(0, 3000));
 * h.write(2000, file.subarray(2000)); // the first 1000 bytes of this are skipped
 * h.digest(); // equals blake3(file)
 * ```
 * @module
 */
import { anumber, aString, aUint8Array, describe } from './_assert.js';
import {
  CHUNK_LEN,
  nextSubtreeLen,
  parentCv,
  resolveMode,
  rootOf,
  subtreeCv,
  type HashMode,
  type Mode,
} from './_subtrees.js';
import { makeCheckpoint, modeName, readCheckpoint, stackDepth, type Checkpoint } from './checkpoint.js';

export type UploadHasherOpts = HashMode & {
  /** The upload's identity, written into checkpoints and checked when resuming (default ''). */
  upload?: string;
  /** Resume from this checkpoint (see readCheckpoint for what is refused). */
  checkpoint?: Checkpoint;
};

function modeOf(opts: UploadHasherOpts): HashMode {
  const mode: HashMode = {};
  if (opts.key !== undefined) mode.key = opts.key;
  if (opts.context !== undefined) mode.context = opts.context;
  return mode;
}

export class UploadHasher {
  readonly #mode: HashMode;
  readonly #resolved: Mode;
  readonly #modeName: string;
  readonly #upload: string;
  /** Chaining values of complete subtrees, largest first: one per set bit of #hashed / 1024. */
  readonly #stack: Uint8Array[] = [];
  /** Bytes covered by the stack: a multiple of 1024. */
  #hashed = 0;
  readonly #tail = new Uint8Array(CHUNK_LEN);
  #tailLen = 0;

  constructor(opts: UploadHasherOpts = {}) {
    if (typeof opts !== 'object' || opts === null) throw new TypeError(`opts must be an object, got ${describe(opts)}`);
    this.#mode = modeOf(opts);
    this.#resolved = resolveMode(this.#mode);
    this.#modeName = modeName(this.#mode);
    this.#upload = opts.upload === undefined ? '' : aString(opts.upload, 'opts.upload');
    if (opts.checkpoint !== undefined) {
      const { offset, stack } = readCheckpoint(opts.checkpoint, this.#upload, this.#modeName);
      this.#hashed = offset;
      this.#stack.push(...stack);
    }
  }

  /** Bytes of the input taken so far: the next write must start at or before this offset. */
  get offset(): number {
    return this.#hashed + this.#tailLen;
  }

  /**
   * Takes `bytes`, which start at byte `offset` of the input. The part before `this.offset` was
   * taken already and is skipped; a write that starts after it would leave a gap and throws a
   * RangeError. Returns how many bytes were new. `bytes` is not kept.
   */
  write(offset: number, bytes: Uint8Array): number {
    anumber(offset, 'offset');
    aUint8Array(bytes, 'bytes');
    const at = this.offset;
    if (offset > at)
      throw new RangeError(`offset must be at most ${at} (the bytes before it are not hashed yet), got ${offset}`);
    if (offset + bytes.length <= at) return 0;
    let data = bytes.subarray(at - offset);
    const taken = data.length;
    if (this.#tailLen > 0) {
      const fill = Math.min(CHUNK_LEN - this.#tailLen, data.length);
      this.#tail.set(data.subarray(0, fill), this.#tailLen);
      this.#tailLen += fill;
      data = data.subarray(fill);
      if (data.length === 0) return taken;
      // A full chunk with more input after it: never the root.
      this.#push(subtreeCv(this.#tail, this.#hashed, this.#resolved), CHUNK_LEN);
      this.#tailLen = 0;
    }
    for (
      let len = nextSubtreeLen(this.#hashed, data.length);
      len > 0;
      len = nextSubtreeLen(this.#hashed, data.length)
    ) {
      this.#push(subtreeCv(data.subarray(0, len), this.#hashed, this.#resolved), len);
      data = data.subarray(len);
    }
    this.#tail.set(data);
    this.#tailLen = data.length;
    return taken;
  }

  /** The state at the last chunk boundary at or before `this.offset`. */
  checkpoint(): Checkpoint {
    return makeCheckpoint(this.#upload, this.#modeName, this.#hashed, this.#stack);
  }

  /**
   * The hash of the input taken so far (`dkLen` bytes, default 32), as `blake3()` of the same
   * bytes in this mode gives it. Does not change the state.
   */
  digest(dkLen = 32): Uint8Array {
    if (this.#tailLen === 0 && this.#hashed > 0) {
      throw new RangeError(
        `the input cannot end at offset ${this.#hashed}, where a checkpoint was resumed: write the bytes after it first`,
      );
    }
    return rootOf(this.#stack, this.#tail.subarray(0, this.#tailLen), this.#hashed, this.#mode, this.#resolved, dkLen);
  }

  #push(cv: Uint8Array, len: number): void {
    this.#stack.push(cv);
    this.#hashed += len;
    // The stack rule of the reference implementation: merge while there are more chaining
    // values than set bits in the chunk count (equal-sized subtrees side by side).
    const depth = stackDepth(this.#hashed / CHUNK_LEN);
    while (this.#stack.length > depth) {
      const right = this.#stack.pop()!;
      const left = this.#stack.pop()!;
      this.#stack.push(parentCv(left, right, this.#resolved));
    }
  }
}
