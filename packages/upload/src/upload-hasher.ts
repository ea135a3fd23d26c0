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
import { blake3, CHUNK_LEN, constantTimeEqual, type Blake3Opts } from '@blake3-web/core';
import {
  ChainingValueStack,
  hashSubtree,
  leftSubtreeLen,
  maxSubtreeLen,
  mergeManySubtreesNonRoot,
  Mode,
} from '@blake3-web/core/hazmat';
import { anumber, aString, aUint8Array, describe } from './_assert.js';
import { joinBytes } from './_join-bytes.js';
import { makeCheckpoint, modeName, readCheckpoint, type Checkpoint, type CheckpointState } from './checkpoint.js';

export type UploadHasherOpts = Omit<Blake3Opts, 'dkLen'> & {
  /** The upload's identity, written into checkpoints and checked when resuming (default ''). */
  upload?: string;
  /** Resume from this checkpoint (see readCheckpoint for what is refused). */
  checkpoint?: Checkpoint;
};

export class UploadHasher {
  readonly #mode: Mode;
  readonly #modeName: string;
  readonly #upload: string;
  /** The subtrees hashed: everything before the tail, a multiple of 1024 bytes. */
  #stack: ChainingValueStack;
  readonly #tail = new Uint8Array(CHUNK_LEN);
  #tailLen = 0;
  /** A state to compare with when the stack reaches its offset (see expect). */
  #expected: CheckpointState | undefined;
  #confirmed: boolean | undefined;

  constructor(opts: UploadHasherOpts = {}) {
    if (typeof opts !== 'object' || opts === null) throw new TypeError(`opts must be an object, got ${describe(opts)}`);
    this.#mode = new Mode(opts);
    this.#modeName = modeName(this.#mode);
    this.#upload = opts.upload === undefined ? '' : aString(opts.upload, 'opts.upload');
    this.#stack =
      opts.checkpoint === undefined
        ? new ChainingValueStack(this.#mode)
        : ChainingValueStack.fromState(readCheckpoint(opts.checkpoint, this.#upload, this.#modeName), this.#mode);
  }

  /** Bytes of the input taken so far: the next write must start at or before this offset. */
  get offset(): number {
    return this.#stack.offset + this.#tailLen;
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
      this.#push(this.#tail);
      this.#tailLen = 0;
    }
    for (let len = this.#nextLen(data.length); len > 0; len = this.#nextLen(data.length)) {
      this.#push(data.subarray(0, len));
      data = data.subarray(len);
    }
    this.#tail.set(data);
    this.#tailLen = data.length;
    this.#reachExpected();
    return taken;
  }

  /**
   * Takes subtrees hashed elsewhere: `cvs` holds the non-root chaining values (`hashSubtrees`'s,
   * in this hasher's mode) of consecutive subtrees of `subtreeLen` bytes from `offset`, which must
   * be where the input taken ends and a multiple of `subtreeLen`. More input must follow them
   * (the last subtree of the input is the root's). They are merged into the largest subtrees
   * their place allows, a level of parents at a time, before they join the stack.
   */
  writeSubtrees(offset: number, cvs: Uint8Array, subtreeLen: number): void {
    anumber(offset, 'offset');
    aUint8Array(cvs, 'cvs');
    if (offset !== this.offset)
      throw new RangeError(`offset must be ${this.offset}, where the input taken ends, got ${offset}`);
    if (!Number.isSafeInteger(subtreeLen) || subtreeLen < CHUNK_LEN || (subtreeLen & (subtreeLen - 1)) !== 0)
      throw new RangeError(`subtreeLen must be a power of two times ${CHUNK_LEN}, got ${subtreeLen}`);
    if (offset % subtreeLen !== 0)
      throw new RangeError(`offset must be a multiple of subtreeLen (${subtreeLen}), got ${offset}`);
    if (cvs.length % 32 !== 0) throw new RangeError(`cvs must be 32 bytes per subtree, got ${cvs.length} bytes`);
    if (this.#expected !== undefined) throw new Error('UploadHasher.writeSubtrees while an expected state lies ahead');
    if (cvs.length === 0) return;
    // The offset is a chunk boundary: a tail is the full chunk before it, which input now follows.
    if (this.#tailLen > 0) {
      this.#push(this.#tail);
      this.#tailLen = 0;
    }
    // The largest subtrees their place allows (each starts at a multiple of its own length),
    // merged a level at a time: every subtree's parents of one level in one batch.
    const leaves: number[] = [];
    for (let i = 0, count = cvs.length / 32, at = offset; i < count;) {
      let n = 1;
      while (i + 2 * n <= count && (at / subtreeLen) % (2 * n) === 0) n *= 2;
      leaves.push(n);
      i += n;
      at += n * subtreeLen;
    }
    let parts: Uint8Array[] = [];
    for (let i = 0, at = 0; i < leaves.length; at += leaves[i++] * 32)
      parts.push(cvs.subarray(at, at + leaves[i] * 32));
    for (;;) {
      const unmerged = parts.filter((part) => part.length > 32);
      if (unmerged.length === 0) break;
      const merged = mergeManySubtreesNonRoot(unmerged.length === 1 ? unmerged[0] : joinBytes(unmerged), this.#mode);
      let at = 0;
      parts = parts.map((part) => (part.length > 32 ? merged.subarray(at, (at += part.length / 2)) : part));
    }
    let at = offset;
    for (let i = 0; i < parts.length; i++) {
      this.#stack.push(parts[i], at, leaves[i] * subtreeLen);
      at += leaves[i] * subtreeLen;
    }
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
    // The same checks as a resume from it: a chunk boundary, one value per set bit of its chunks.
    const { offset, cvs } = ChainingValueStack.fromState(state, this.#mode).state();
    if (offset < this.offset)
      throw new RangeError(`state.offset must be at or after the offset taken (${this.offset}), got ${offset}`);
    this.#expected = { offset, cvs };
    this.#confirmed = undefined;
    this.#reachExpected();
  }

  /** The outcome of `expect`: undefined until the input reaches its offset, then whether it matched. */
  get confirmed(): boolean | undefined {
    return this.#confirmed;
  }

  /** The state at the last chunk boundary at or before `this.offset`. */
  checkpoint(): Checkpoint {
    return makeCheckpoint(this.#upload, this.#modeName, this.#stack.state());
  }

  /**
   * The hash of the input taken so far (`dkLen` bytes, default 32), as `blake3()` of the same
   * bytes in this mode gives it. Does not change the state.
   */
  digest(dkLen = 32): Uint8Array {
    const at = this.#stack.offset;
    const tail = this.#tail.subarray(0, this.#tailLen);
    if (at === 0) return blake3(tail, { ...this.#mode.options, dkLen });
    if (tail.length === 0) {
      throw new RangeError(
        `the input cannot end at offset ${at}, where a checkpoint was resumed: write the bytes after it first`,
      );
    }
    return this.#stack
      .clone()
      .push(hashSubtree(tail, at, this.#mode), at, tail.length)
      .digest(dkLen);
  }

  /**
   * The length of the next whole subtree of `available` bytes at the stack's offset, leaving at
   * least one byte after it (a subtree that ends the input would be the root's); while an
   * expected state lies ahead, subtrees stop at its offset so that the stack lands on it.
   */
  #nextLen(available: number): number {
    const at = this.#stack.offset;
    const ahead = this.#expected === undefined ? Infinity : this.#expected.offset - at;
    const bound = ahead > 0 && ahead < available ? ahead + 1 : available;
    if (bound <= CHUNK_LEN) return 0;
    return Math.min(leftSubtreeLen(bound), maxSubtreeLen(at) ?? Infinity);
  }

  /**
   * Where the bytes taken end at the expected offset with its last chunk in the tail, that chunk
   * is pushed (the input goes on: it is not the root's), so the check runs now.
   */
  #reachExpected(): void {
    const expected = this.#expected;
    if (expected === undefined) return;
    if (this.#tailLen === CHUNK_LEN && this.#stack.offset + CHUNK_LEN === expected.offset) {
      this.#push(this.#tail);
      this.#tailLen = 0;
    } else if (this.#stack.offset === expected.offset) this.#compare(expected);
  }

  #compare(expected: CheckpointState): void {
    this.#expected = undefined;
    this.#confirmed = constantTimeEqual(this.#stack.state().cvs, expected.cvs);
  }

  /** Hashes `subtree`, a whole power-of-two subtree where the stack ends, and pushes it. */
  #push(subtree: Uint8Array): void {
    const at = this.#stack.offset;
    this.#stack.push(hashSubtree(subtree, at, this.#mode), at, subtree.length);
    if (this.#expected !== undefined && this.#stack.offset === this.#expected.offset) this.#compare(this.#expected);
  }
}
