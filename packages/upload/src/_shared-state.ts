// An upload's hash between two requests, as the verifying store keeps it in a key-value store
// that every server instance reads: the chunk stack (its offset, a multiple of 1024, and one
// chaining value per set bit of its chunk count) and the bytes after it (the last chunk, held
// back because it may be the root's). Bound to the upload and the mode and checksummed, so a
// damaged state, or one made for another upload or in another mode, is refused and never
// continued. About 2.6 KB as JSON for an upload of 1 GiB (20 chaining values and 1 KiB of tail,
// base64), 3.4 KB at the 2^53 - 1 limit.
//
// All the code that knows the state's layout is here: the stack is UploadHasher's, read and
// rebuilt through its checkpoints.
import { blake3, CHUNK_LEN, type Blake3Opts } from '@blake3-web/core';
import { describe } from './_assert.js';
import { CheckpointError, makeCheckpoint, modeName } from './checkpoint.js';
import { UploadHasher } from './upload-hasher.js';

type HashMode = Omit<Blake3Opts, 'dkLen'>;

/**
 * Bytes written as bytes (read back from a store; a request's body goes through `LeafRun`, which
 * writes whole leaves as chaining values) are gathered before they go to the hasher. The hasher
 * holds back the last chunk of every write (it may be the root's), so a write of n bytes at a
 * boundary is hashed as subtrees of n/2, n/4, ... 1 KiB, which use few SIMD lanes: gathered to
 * 1 MiB, under 2 % of the bytes go through small subtrees.
 */
const GATHER_BYTES = 1 << 20;

export const SHARED_STATE_FORMAT = 'blake3-web/upload-state';
export const SHARED_STATE_VERSION = 1;

/** A state as stored: plain JSON. */
export type SharedStateRecord = {
  readonly format: typeof SHARED_STATE_FORMAT;
  readonly version: typeof SHARED_STATE_VERSION;
  /** The upload's id in the store. */
  readonly upload: string;
  /** As a checkpoint names it: 'hash', 'keyed:<fingerprint>' or 'derive:<context>'. */
  readonly mode: string;
  /** Bytes hashed: the stack's bytes and then the tail's. */
  readonly offset: number;
  /** The stack's chaining values, largest subtree first, base64. */
  readonly cvs: string;
  /** The bytes after the stack, base64: 1 to 1024 of them once any byte was hashed. */
  readonly tail: string;
  /** Checksum of the fields above, hex. */
  readonly check: string;
};

const toBase64 = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('base64');

function fromBase64(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return undefined;
  return new Uint8Array(Buffer.from(text, 'base64'));
}

function checksumOf(r: Omit<SharedStateRecord, 'check'>): string {
  const text = JSON.stringify([r.format, r.version, r.upload, r.mode, r.offset, r.cvs, r.tail]);
  return Buffer.from(blake3(text, { context: 'blake3-web upload shared state v1', dkLen: 16 })).toString('hex');
}

/**
 * An UploadHasher that can be written to the key-value store and read back: it also keeps the
 * bytes after the hasher's last checkpoint, which the checkpoint leaves out.
 */
export class SharedHashState {
  readonly #upload: string;
  readonly #mode: HashMode;
  readonly #hasher: UploadHasher;
  /** The last bytes taken, up to one chunk: the tail is their last `offset - checkpoint offset`. */
  readonly #last = new Uint8Array(CHUNK_LEN);
  #lastLen = 0;
  /**
   * Bytes taken after the hasher's, not hashed yet: grown as they come, up to GATHER_BYTES. A
   * state is read back for every request and takes a tail of at most 1 KiB, and then the leaf a
   * request's body ends in: a buffer of GATHER_BYTES for each was a zero-filled MiB and the GC's
   * work per request (1.4 ms of CPU per request, most of what a request cost beside its bytes).
   */
  #gathered: Uint8Array | undefined;
  #gatheredLen = 0;

  private constructor(upload: string, mode: HashMode, hasher: UploadHasher) {
    this.#upload = upload;
    this.#mode = mode;
    this.#hasher = hasher;
  }

  /** The state of an upload that has taken no byte. */
  static empty(upload: string, mode: HashMode): SharedHashState {
    return new SharedHashState(upload, mode, new UploadHasher({ ...mode, upload }));
  }

  /**
   * The state in `record`, which must be of `upload` in `mode`. Throws a CheckpointError
   * ('corrupt', 'version' or 'foreign') for anything else.
   */
  static read(record: unknown, upload: string, mode: HashMode): SharedHashState {
    const corrupt = (why: string) => new CheckpointError('corrupt', `shared hash state refused: ${why}`);
    if (typeof record !== 'object' || record === null) throw corrupt(`expected an object, got ${describe(record)}`);
    const r = record as Partial<Record<keyof SharedStateRecord, unknown>>;
    if (r.format !== SHARED_STATE_FORMAT) throw corrupt(`format is not ${SHARED_STATE_FORMAT}`);
    if (r.version !== SHARED_STATE_VERSION)
      throw new CheckpointError(
        'version',
        `shared hash state refused: version ${String(r.version)}, this version reads ${SHARED_STATE_VERSION}`,
      );
    const { offset, cvs, tail, check } = r;
    if (
      typeof r.upload !== 'string' ||
      typeof r.mode !== 'string' ||
      typeof cvs !== 'string' ||
      typeof tail !== 'string' ||
      typeof check !== 'string'
    )
      throw corrupt('a field is missing or not a string');
    if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0)
      throw corrupt(`offset must be a non-negative integer, got ${describe(offset)}`);
    const fields = {
      format: SHARED_STATE_FORMAT,
      version: SHARED_STATE_VERSION,
      upload: r.upload,
      mode: r.mode,
      offset,
      cvs,
      tail,
    } as const;
    if (check !== checksumOf(fields)) throw corrupt('the checksum does not match its contents');
    if (r.upload !== upload)
      throw new CheckpointError(
        'foreign',
        `shared hash state refused: it belongs to upload ${JSON.stringify(r.upload)}, not ${JSON.stringify(upload)}`,
      );
    const name = modeName(mode);
    if (r.mode !== name)
      throw new CheckpointError(
        'foreign',
        'shared hash state refused: it was made in another mode (hash, key or context)',
      );
    const tailBytes = fromBase64(tail);
    const cvBytes = fromBase64(cvs);
    if (tailBytes === undefined || cvBytes === undefined) throw corrupt('cvs and tail must be base64');
    const stackOffset = offset - tailBytes.length;
    if (offset > 0 ? tailBytes.length === 0 || tailBytes.length > CHUNK_LEN : tailBytes.length !== 0)
      throw corrupt(`a tail of ${tailBytes.length} bytes cannot end at offset ${offset}`);
    if (stackOffset % CHUNK_LEN !== 0)
      throw corrupt(`the stack must end at a multiple of ${CHUNK_LEN}, got ${stackOffset}`);
    // The stack's rules (its depth at that offset) are checked where checkpoints are read.
    const checkpoint = makeCheckpoint(upload, name, { offset: stackOffset, cvs: cvBytes });
    const state = new SharedHashState(upload, mode, new UploadHasher({ ...mode, upload, checkpoint }));
    state.write(stackOffset, tailBytes);
    return state;
  }

  /** Bytes taken. */
  get offset(): number {
    return this.#hasher.offset + this.#gatheredLen;
  }

  /** Takes `bytes` at `at`, which must be at most `offset`; bytes before `offset` are skipped. */
  write(at: number, bytes: Uint8Array): void {
    const before = this.offset;
    if (at > before)
      throw new RangeError(`offset must be at most ${before} (the bytes before it are not hashed yet), got ${at}`);
    if (at + bytes.length <= before) return;
    const fresh = bytes.subarray(before - at);
    this.#gather(fresh);
    if (fresh.length >= CHUNK_LEN) {
      this.#last.set(fresh.subarray(fresh.length - CHUNK_LEN));
      this.#lastLen = CHUNK_LEN;
      return;
    }
    const keep = Math.min(this.#lastLen, CHUNK_LEN - fresh.length);
    this.#last.copyWithin(0, this.#lastLen - keep, this.#lastLen);
    this.#last.set(fresh, keep);
    this.#lastLen = keep + fresh.length;
  }

  /**
   * Takes consecutive whole subtrees of `subtreeLen` bytes from `at` (`offset`, a multiple of
   * `subtreeLen`), more bytes following them, hashed elsewhere: their chaining values `cvs`, and
   * `lastChunk`, the last 1024 bytes they cover.
   */
  writeSubtrees(at: number, cvs: Uint8Array, subtreeLen: number, lastChunk: Uint8Array): void {
    if (lastChunk.length !== CHUNK_LEN)
      throw new RangeError(`lastChunk must be ${CHUNK_LEN} bytes, got ${lastChunk.length}`);
    this.#hashGathered();
    this.#hasher.writeSubtrees(at, cvs, subtreeLen);
    this.#last.set(lastChunk);
    this.#lastLen = CHUNK_LEN;
  }

  /** The hash of the bytes taken (32 bytes). */
  digest(): Uint8Array {
    this.#hashGathered();
    return this.#hasher.digest();
  }

  /** The state as stored. */
  record(): SharedStateRecord {
    this.#hashGathered();
    const checkpoint = this.#hasher.checkpoint();
    const tailLen = this.offset - checkpoint.offset;
    if (tailLen > this.#lastLen) throw new Error('the bytes after the last checkpoint were not kept');
    const fields = {
      format: SHARED_STATE_FORMAT,
      version: SHARED_STATE_VERSION,
      upload: this.#upload,
      mode: checkpoint.mode,
      offset: this.offset,
      cvs: toBase64(Buffer.from(checkpoint.cvs, 'hex')),
      tail: toBase64(this.#last.subarray(this.#lastLen - tailLen, this.#lastLen)),
    } as const;
    return { ...fields, check: checksumOf(fields) };
  }

  #gather(fresh: Uint8Array): void {
    let data = fresh;
    if (this.#gatheredLen === 0 && data.length >= GATHER_BYTES) {
      this.#hasher.write(this.#hasher.offset, data);
      return;
    }
    let gathered = this.#gathered ?? new Uint8Array(0);
    const needed = Math.min(GATHER_BYTES, this.#gatheredLen + data.length);
    if (gathered.length < needed) {
      const grown = new Uint8Array(Math.min(GATHER_BYTES, Math.max(needed, 2 * gathered.length)));
      grown.set(gathered.subarray(0, this.#gatheredLen));
      this.#gathered = gathered = grown;
    }
    while (data.length > 0) {
      const n = Math.min(GATHER_BYTES - this.#gatheredLen, data.length);
      gathered.set(data.subarray(0, n), this.#gatheredLen);
      this.#gatheredLen += n;
      data = data.subarray(n);
      if (this.#gatheredLen === GATHER_BYTES) this.#hashGathered();
    }
  }

  #hashGathered(): void {
    if (this.#gatheredLen === 0) return;
    const bytes = this.#gathered!.subarray(0, this.#gatheredLen);
    this.#gatheredLen = 0;
    this.#hasher.write(this.#hasher.offset, bytes);
  }

  /** A copy that goes on independently. */
  copy(): SharedHashState {
    return SharedHashState.read(this.record(), this.#upload, this.#mode);
  }
}
