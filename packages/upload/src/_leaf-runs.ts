// An upload's leaves as the verifying store hashes its bytes: each byte once. While bytes pass,
// whole leaves are hashed a batch at a time where they lie (`hashSubtrees`), and their chaining
// values go to the upload's hash state, whose stack merges them: the root follows from the
// leaves. With an outboard, the chaining values are also kept in the key-value store in runs of
// at most `stateEvery` bytes (a run per request at least), so every instance adds to the same
// upload's leaves and nothing another instance needs stays in one process or on one disk. At the
// finish the runs, and the stored bytes of any stretch they miss, go through OutboardBuilder,
// which makes the parents and writes the outboard.
//
// A run of bytes [start, end) is self-contained: the bytes up to the first leaf boundary (head),
// the chaining values of the whole leaves after it but the last, and the last leaf's bytes
// (tail, 1 to one leaf): the last leaf is hashed only once a byte follows it, since it is the
// root's when it is the only one. Bound to the upload and the leaf size, and checksummed.
import { blake3, CHUNK_LEN } from '@blake3-web/core';
import { hashSubtrees, type Mode } from '@blake3-web/core/hazmat';
import { describe } from './_assert.js';
import type { SharedHashState } from './_shared-state.js';
import type { HashSubtrees } from './_subtree-hasher.js';
import { CheckpointError } from './checkpoint.js';

export const LEAF_RUN_FORMAT = 'blake3-web/upload-leaf-run';

/**
 * Content whose leaves' values wait before they go into the hash state: merged there a level of
 * parents at a time, batches of fewer than 4 parents go to the JS jobs, not the SIMD kernel.
 */
const PENDING_BYTES = 1 << 20;

/** A run as stored: plain JSON. */
export type LeafRunRecord = {
  readonly format: typeof LEAF_RUN_FORMAT;
  readonly upload: string;
  readonly leafBytes: number;
  readonly start: number;
  readonly end: number;
  /** base64 */
  readonly head: string;
  /** base64: 32 bytes per leaf */
  readonly cvs: string;
  /** base64 */
  readonly tail: string;
  /** Checksum of the fields above, hex. */
  readonly check: string;
};

/** A run read back: its parts as bytes. */
export type LeafRunParts = { start: number; end: number; head: Uint8Array; cvs: Uint8Array; tail: Uint8Array };

const toBase64 = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('base64');

/** A copy in an ArrayBuffer of its own (OutboardBuilder reads chaining values a word at a time). */
function fromBase64(text: unknown): Uint8Array | undefined {
  if (typeof text !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return undefined;
  return Uint8Array.from(Buffer.from(text, 'base64'));
}

function checksumOf(r: Omit<LeafRunRecord, 'check'>): string {
  const text = JSON.stringify([r.format, r.upload, r.leafBytes, r.start, r.end, r.head, r.cvs, r.tail]);
  return Buffer.from(blake3(text, { context: 'blake3-web upload leaf run v1', dkLen: 16 })).toString('hex');
}

/**
 * The leaves of the bytes of one upload from `start`, as they pass into its hash state: the bytes
 * before the first leaf boundary as they are, the whole leaves as chaining values. With `keep`,
 * also what the run is made of (`record`).
 */
export class LeafRun {
  readonly start: number;
  readonly #leafBytes: number;
  readonly #state: SharedHashState;
  readonly #mode: Mode;
  readonly #keep: boolean;
  readonly #hashSubtrees: HashSubtrees;
  #end: number;
  readonly #head: Uint8Array[] = [];
  readonly #cvs: Uint8Array[] = [];
  /** The last leaf begun at a boundary: held until a byte follows it. */
  readonly #leaf: Uint8Array;
  #fill = 0;
  /**
   * Chaining values of leaves hashed and not yet in the state, from `#pendingAt`: they go in
   * PENDING_BYTES of content at a time, so their merges run in large batches.
   */
  readonly #pending: Uint8Array;
  #pendingLen = 0;
  #pendingAt = 0;
  /** The last 1024 bytes of the pending leaves. */
  readonly #lastChunk = new Uint8Array(CHUNK_LEN);

  /** `state` must stand at `start`; `mode` is its mode; `hash` hashes the leaves (the core's by default). */
  constructor(
    start: number,
    leafBytes: number,
    state: SharedHashState,
    mode: Mode,
    keep: boolean,
    hash: HashSubtrees = hashSubtrees,
  ) {
    if (state.offset !== start) throw new RangeError(`the hash state stands at ${state.offset}, not at ${start}`);
    this.start = start;
    this.#end = start;
    this.#leafBytes = leafBytes;
    this.#state = state;
    this.#mode = mode;
    this.#keep = keep;
    this.#hashSubtrees = hash;
    this.#leaf = new Uint8Array(leafBytes);
    this.#pending = new Uint8Array(Math.max(1, PENDING_BYTES / leafBytes) * 32);
  }

  get end(): number {
    return this.#end;
  }

  update(bytes: Uint8Array): void {
    const leafBytes = this.#leafBytes;
    let i = 0;
    const boundary = Math.ceil(this.start / leafBytes) * leafBytes;
    if (this.#end < boundary) {
      const n = Math.min(boundary - this.#end, bytes.length);
      const head = bytes.subarray(0, n);
      if (this.#keep) this.#head.push(head.slice());
      this.#state.write(this.#end, head);
      this.#end += n;
      i = n;
    }
    while (i < bytes.length) {
      if (this.#fill === leafBytes) {
        this.#leaves(this.#end - leafBytes, this.#leaf);
        this.#fill = 0;
      }
      if (this.#fill === 0) {
        const whole = Math.floor((bytes.length - i - 1) / leafBytes);
        if (whole > 0) {
          this.#leaves(this.#end, bytes.subarray(i, i + whole * leafBytes));
          i += whole * leafBytes;
          this.#end += whole * leafBytes;
        }
      }
      const n = Math.min(leafBytes - this.#fill, bytes.length - i);
      this.#leaf.set(bytes.subarray(i, i + n), this.#fill);
      this.#fill += n;
      this.#end += n;
      i += n;
    }
  }

  /**
   * Brings the hash state to `end`: the pending leaves' values, then the bytes of the leaf held
   * back (once that leaf is whole and followed, the state takes the rest of it as bytes).
   */
  settle(): void {
    this.#flush();
    this.#state.write(this.#end - this.#fill, this.#leaf.subarray(0, this.#fill));
  }

  /** Whole leaves at `at`, which more bytes follow: hashed once, for the state (and the run). */
  #leaves(at: number, bytes: Uint8Array): void {
    const leafBytes = this.#leafBytes;
    const cvs = this.#hashSubtrees(bytes, at, leafBytes, this.#mode);
    if (this.#keep) this.#cvs.push(cvs);
    const count = cvs.length / 32;
    let i = 0;
    // The leaf held back at a settle: the state took its first bytes, the rest go in as bytes.
    if (this.#pendingLen === 0 && this.#state.offset > at) {
      this.#state.write(at, bytes.subarray(0, leafBytes));
      i = 1;
    }
    while (i < count) {
      if (this.#pendingLen === 0) this.#pendingAt = at + i * leafBytes;
      const n = Math.min(count - i, (this.#pending.length - this.#pendingLen) / 32);
      this.#pending.set(cvs.subarray(i * 32, (i + n) * 32), this.#pendingLen);
      this.#pendingLen += n * 32;
      i += n;
      this.#lastChunk.set(bytes.subarray(i * leafBytes - CHUNK_LEN, i * leafBytes));
      if (this.#pendingLen === this.#pending.length) this.#flush();
    }
  }

  #flush(): void {
    if (this.#pendingLen === 0) return;
    const cvs = this.#pending.subarray(0, this.#pendingLen);
    this.#state.writeSubtrees(this.#pendingAt, cvs, this.#leafBytes, this.#lastChunk);
    this.#pendingLen = 0;
  }

  /** The run as stored. */
  record(upload: string): LeafRunRecord {
    if (!this.#keep) throw new Error('LeafRun.record: a run made without keep has no record');
    const cvs = Buffer.concat(this.#cvs);
    const head = Buffer.concat(this.#head);
    const fields = {
      format: LEAF_RUN_FORMAT,
      upload,
      leafBytes: this.#leafBytes,
      start: this.start,
      end: this.#end,
      head: toBase64(head),
      cvs: toBase64(cvs),
      tail: toBase64(this.#leaf.subarray(0, this.#fill)),
    } as const;
    return { ...fields, check: checksumOf(fields) };
  }
}

/**
 * The parts of the run in `record`, which must be of `upload` with leaves of `leafBytes`, its
 * parts adding up to its bytes. Throws a CheckpointError ('corrupt' or 'foreign') for anything else.
 */
export function readLeafRun(record: unknown, upload: string, leafBytes: number): LeafRunParts {
  const corrupt = (why: string) => new CheckpointError('corrupt', `outboard leaf run refused: ${why}`);
  if (typeof record !== 'object' || record === null) throw corrupt(`expected an object, got ${describe(record)}`);
  const r = record as Partial<Record<keyof LeafRunRecord, unknown>>;
  if (r.format !== LEAF_RUN_FORMAT) throw corrupt(`format is not ${LEAF_RUN_FORMAT}`);
  const { start, end } = r;
  if (
    typeof r.upload !== 'string' ||
    typeof r.leafBytes !== 'number' ||
    typeof start !== 'number' ||
    typeof end !== 'number' ||
    typeof r.head !== 'string' ||
    typeof r.cvs !== 'string' ||
    typeof r.tail !== 'string' ||
    typeof r.check !== 'string'
  )
    throw corrupt('a field is missing or of the wrong type');
  const fields = {
    format: LEAF_RUN_FORMAT,
    upload: r.upload,
    leafBytes: r.leafBytes,
    start,
    end,
    head: r.head,
    cvs: r.cvs,
    tail: r.tail,
  } as const;
  if (r.check !== checksumOf(fields)) throw corrupt('the checksum does not match its contents');
  if (r.upload !== upload)
    throw new CheckpointError(
      'foreign',
      `outboard leaf run refused: it belongs to upload ${JSON.stringify(r.upload)}, not ${JSON.stringify(upload)}`,
    );
  if (r.leafBytes !== leafBytes)
    throw new CheckpointError('foreign', `outboard leaf run refused: its leaves are of ${r.leafBytes} bytes`);
  const head = fromBase64(r.head);
  const cvs = fromBase64(r.cvs);
  const tail = fromBase64(r.tail);
  if (head === undefined || cvs === undefined || tail === undefined) throw corrupt('head, cvs and tail must be base64');
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end <= start)
    throw corrupt(`bytes ${start} to ${end} are no run`);
  // The head reaches the first boundary or the end; whole leaves follow, then the last leaf.
  const boundary = Math.ceil(start / leafBytes) * leafBytes;
  const leaves = cvs.length / 32;
  const shape =
    head.length === Math.min(boundary, end) - start &&
    Number.isInteger(leaves) &&
    (end <= boundary
      ? leaves === 0 && tail.length === 0
      : tail.length >= 1 && tail.length <= leafBytes && boundary + leaves * leafBytes + tail.length === end);
  if (!shape) throw corrupt(`its parts do not make bytes ${start} to ${end}`);
  return { start, end, head, cvs, tail };
}
