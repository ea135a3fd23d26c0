/**
 * Checkpoints: the hash of an upload's first `offset` bytes as a small plain object (JSON and
 * structured-clone safe) that a later hasher resumes from. `offset` is a multiple of 1024 and
 * the state is core's `ChainingValueStack` at rest there (`state()`): one 32-byte chaining value
 * per set bit of `offset / 1024`. A checkpoint names the upload and the mode it belongs to and
 * carries a checksum; reading one that is damaged, of another version, or of another upload or
 * mode throws a CheckpointError, never a hasher that would give a wrong root.
 * @module
 */
import { blake3, bytesToHex, CHUNK_LEN, hexToBytes, OUT_LEN, type Blake3Opts } from '@blake3-web/core';
import { cvStackDepth, Mode, type ChainingValueStackState } from '@blake3-web/core/hazmat';
import { describe } from './_assert.js';

export const CHECKPOINT_FORMAT = 'blake3-web/upload-checkpoint';
export const CHECKPOINT_VERSION = 1;

export type Checkpoint = {
  readonly format: typeof CHECKPOINT_FORMAT;
  readonly version: typeof CHECKPOINT_VERSION;
  /** The upload it belongs to (the caller's identity for it: a URL, a fingerprint). */
  readonly upload: string;
  /** 'hash', 'keyed:<fingerprint of the key>' (never the key) or 'derive:<context>'. */
  readonly mode: string;
  /** Bytes hashed: a multiple of 1024. */
  readonly offset: number;
  /** The chaining values, largest subtree first, in hex. */
  readonly cvs: string;
  /** Hex checksum of the fields above. */
  readonly check: string;
};

/** Why a checkpoint was refused: 'corrupt' (malformed or damaged), 'version', or 'foreign' (another upload or mode). */
export class CheckpointError extends Error {
  override name = 'CheckpointError';
  readonly reason: 'corrupt' | 'version' | 'foreign';
  constructor(reason: 'corrupt' | 'version' | 'foreign', message: string) {
    super(message);
    this.reason = reason;
  }
}

/** How a checkpoint names a mode; a keyed mode by a fingerprint that does not reveal the key. */
export function modeName(mode: Mode | Omit<Blake3Opts, 'dkLen'>): string {
  const { key, context } = (mode instanceof Mode ? mode : new Mode(mode)).options;
  if (key !== undefined) return `keyed:${bytesToHex(blake3('blake3-web upload checkpoint key', { key, dkLen: 16 }))}`;
  if (context !== undefined) return `derive:${context}`;
  return 'hash';
}

/** A checksum of a checkpoint's fields: a damaged checkpoint is refused, not resumed. */
function checksumOf(c: Omit<Checkpoint, 'check'>): string {
  const text = JSON.stringify([c.format, c.version, c.upload, c.mode, c.offset, c.cvs]);
  return bytesToHex(blake3(text, { context: 'blake3-web upload checkpoint v1', dkLen: 16 }));
}

export function makeCheckpoint(upload: string, mode: string, state: ChainingValueStackState): Checkpoint {
  const fields = {
    format: CHECKPOINT_FORMAT,
    version: CHECKPOINT_VERSION,
    upload,
    mode,
    offset: state.offset,
    cvs: bytesToHex(state.cvs),
  } as const;
  return { ...fields, check: checksumOf(fields) };
}

/** The same state, named for another upload (the tus adapter learns an upload's URL after its hasher started). */
export function checkpointFor(checkpoint: Checkpoint, upload: string): Checkpoint {
  const { check: _, ...fields } = checkpoint;
  const named = { ...fields, upload };
  return { ...named, check: checksumOf(named) };
}

/**
 * Bytes hashed and the chaining values of a checkpoint that passed every check: a hazmat
 * `ChainingValueStack`'s state (`offset`, and `cvs`, the values one after another, largest first).
 */
export type CheckpointState = ChainingValueStackState;

/**
 * Validates `value` as a checkpoint of `upload` in `mode` and returns its state. Throws a
 * CheckpointError otherwise.
 */
export function readCheckpoint(value: unknown, upload: string, mode: string): CheckpointState {
  const corrupt = (why: string) => new CheckpointError('corrupt', `checkpoint refused: ${why}`);
  if (typeof value !== 'object' || value === null) throw corrupt(`expected an object, got ${describe(value)}`);
  const c = value as Partial<Record<keyof Checkpoint, unknown>>;
  if (c.format !== CHECKPOINT_FORMAT) throw corrupt(`format is not ${CHECKPOINT_FORMAT}`);
  if (c.version !== CHECKPOINT_VERSION)
    throw new CheckpointError(
      'version',
      `checkpoint refused: version ${String(c.version)}, this version reads ${CHECKPOINT_VERSION}`,
    );
  const { offset, cvs, check } = c;
  if (
    typeof c.upload !== 'string' ||
    typeof c.mode !== 'string' ||
    typeof cvs !== 'string' ||
    typeof check !== 'string'
  )
    throw corrupt('a field is missing or not a string');
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0 || offset % CHUNK_LEN !== 0) {
    throw corrupt(`offset must be a non-negative multiple of ${CHUNK_LEN}, got ${describe(offset)}`);
  }
  const depth = cvStackDepth(offset);
  if (cvs.length !== depth * OUT_LEN * 2 || !/^[0-9a-f]*$/.test(cvs))
    throw corrupt(`expected ${depth} chaining values for offset ${offset}`);
  const fields = {
    format: CHECKPOINT_FORMAT,
    version: CHECKPOINT_VERSION,
    upload: c.upload,
    mode: c.mode,
    offset,
    cvs,
  } as const;
  if (check !== checksumOf(fields)) throw corrupt('the checksum does not match its contents');
  if (c.upload !== upload)
    throw new CheckpointError(
      'foreign',
      `checkpoint refused: it belongs to upload ${JSON.stringify(c.upload)}, not ${JSON.stringify(upload)}`,
    );
  if (c.mode !== mode)
    throw new CheckpointError('foreign', 'checkpoint refused: it was made in another mode (hash, key or context)');
  return { offset, cvs: hexToBytes(cvs) };
}
