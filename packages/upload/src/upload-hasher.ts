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
import {
  makeCheckpoint,
  modeName,
  readCheckpoint,
  stackDepth,
  type Checkpoint,
  type CheckpointState,
} from './checkpoint.js';

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
  /** A state to compare with when the stack reaches its offset (see expect). */
  #expected: CheckpointState | undefined;
  #confirmed: boolean | undefined;

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
      if (data.length === 0) {
        this.#reachExpected();
        return taken;
      }
      // A full chunk with more input after it: never the root.
      this.#push(subtreeCv(this.#tail, this.#hashed, this.#resolved), CHUNK_LEN);
      this.#tailLen = 0;
    }
    for (let len = this.#nextLen(data.length); len > 0; len = this.#nextLen(data.length)) {
      this.#push(subtreeCv(data.subarray(0, len), this.#hashed, this.#resolved), len);
      data = data.subarray(len);
    }
    this.#tail.set(data);
    this.#tailLen = data.length;
    this.#reachExpected();
    return taken;
  }

  /**
   * Checks the input against `state` (a checkpoint's, from readCheckpoint) when the chunk stack
   * reaches `state.offset`: `confirmed` is then true if the first `state.offset` bytes taken hash
   * to that state, else false. Nothing of `state` enters the hash: this proves, or disproves, that
   * the input begins with the bytes the checkpoint was made of. The input must go on past
   * `state.offset`, as after a resume (the stack takes the chunk before it as a non-root chunk).
   */
  expect(state: CheckpointState): void {
    if (typeof state !== 'object' || state === null)
      throw new TypeError(`state must be a checkpoint's state, got ${describe(state)}`);
    const { offset, stack } = state;
    anumber(offset, 'state.offset');
    if (offset % CHUNK_LEN !== 0 || offset < this.offset)
      throw new RangeError(
        `state.offset must be a multiple of ${CHUNK_LEN} at or after the offset taken (${this.offset}), got ${offset}`,
      );
    if (!Array.isArray(stack) || stack.length !== stackDepth(offset / CHUNK_LEN))
      throw new RangeError(
        `state.stack must hold ${stackDepth(offset / CHUNK_LEN)} chaining values for offset ${offset}, got ${describe(stack)}`,
      );
    stack.forEach((cv, i) => {
      if (aUint8Array(cv, `state.stack[${i}]`).length !== 32)
        throw new RangeError(`state.stack[${i}] must be 32 bytes, got ${cv.length}`);
    });
    this.#expected = { offset, stack: stack.map((cv) => cv.slice()) };
    this.#confirmed = undefined;
    this.#reachExpected();
  }

  /** The outcome of `expect`: undefined until the input reaches its offset, then whether it matched. */
  get confirmed(): boolean | undefined {
    return this.#confirmed;
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

  /**
   * The length of the next whole subtree of `available` bytes at the stack's offset; while an
   * expected state lies ahead, subtrees stop at its offset so that the stack lands on it.
   */
  #nextLen(available: number): number {
    const ahead = this.#expected === undefined ? Infinity : this.#expected.offset - this.#hashed;
    return nextSubtreeLen(this.#hashed, ahead > 0 && ahead < available ? ahead + 1 : available);
  }

  /**
   * Where the bytes taken end at the expected offset with its last chunk in the tail, that chunk
   * is pushed (the input goes on: it is not the root's), so the check runs now.
   */
  #reachExpected(): void {
    const expected = this.#expected;
    if (expected === undefined) return;
    if (this.#tailLen === CHUNK_LEN && this.#hashed + CHUNK_LEN === expected.offset) {
      this.#push(subtreeCv(this.#tail, this.#hashed, this.#resolved), CHUNK_LEN);
      this.#tailLen = 0;
    } else if (this.#hashed === expected.offset) this.#compare(expected);
  }

  #compare(expected: CheckpointState): void {
    this.#expected = undefined;
    let diff = this.#stack.length ^ expected.stack.length;
    for (let i = 0; i < this.#stack.length && diff === 0; i++)
      for (let j = 0; j < 32; j++) diff |= this.#stack[i][j] ^ expected.stack[i][j];
    this.#confirmed = diff === 0;
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
    if (this.#expected !== undefined && this.#hashed === this.#expected.offset) this.#compare(this.#expected);
  }
}
