/**
 * The file source the tus adapter gives tus-js-client: each slice tus asks for goes to the request
 * and to the hashing worker, and nothing the request waits for waits on the hash. Two ways:
 * - the worker reads (browsers): tus sends the file's own slice, as it would without the
 *   adapter, and the worker is sent the same slice of the file to read and hash itself; the page
 *   never holds the bytes.
 * - the page reads (where the request needs the bytes, as tus-js-client's Node stack does): each
 *   slice is read once, the next while this one is sent (ReadAhead), and the bytes go to the
 *   request and, transferred, to the worker.
 * The worker hashes behind the network, and a slice waits for it only when it falls MAX_BACKLOG
 * slices behind, which bounds memory; checkpoints come with the worker's answers and are saved
 * without holding a request back.
 * @module
 */
import type { CheckpointStore } from './checkpoint-store.js';
import { ReadAhead } from './read-ahead.js';
import type { WorkerHasher } from './worker-hasher.js';

/** A slice as tus-js-client 4 takes it from a file source. */
export type TusSlice = { done: boolean; value: Blob | Uint8Array; size: number };

/** Slices sent to the worker and not yet hashed before a slice waits (memory: that many slices). */
const MAX_BACKLOG = 2;

/**
 * The body tus sends for a slice. Where XMLHttpRequest sends it, a Blob of the bytes read (a
 * copy in memory, not a second read of the file): Chromium 156 blocks the page while it sends a
 * typed array (64 MiB in 8 MiB slices: pauses of up to 1.5 s, 4.3x the time of tus alone; as a
 * Blob, no pause over 30 ms). Elsewhere (tus-js-client's Node stack takes no Blob) the bytes,
 * with the `size` field tus-js-client 4 reads a slice's length from.
 */
function sliceBody(bytes: Uint8Array): Blob | Uint8Array {
  if (typeof XMLHttpRequest === 'function') return new Blob([bytes as Uint8Array<ArrayBuffer>]);
  return Object.assign(bytes, { size: bytes.length });
}

export class HashingSource {
  readonly size: number;
  /** The upload's identity: its checkpoints are kept under it. */
  readonly id: string;
  /** The root, once the last slice has been hashed. */
  readonly root: Promise<Uint8Array>;
  /** The last slice has been read: the request that sends it carries the root. */
  final = false;
  readonly #file: Blob;
  /** Null when the worker reads the file. */
  readonly #reader: ReadAhead | null;
  /** Bytes the worker has read from the file. */
  #workerRead = 0;
  readonly #hasher: WorkerHasher;
  readonly #chunkSize: number;
  readonly #store: CheckpointStore | null;
  readonly #backlog: Promise<unknown>[] = [];
  /** Where the bytes sent to the worker end: its offset once it has hashed them all. */
  #sent: number;
  /** The offset the server has confirmed: tus asks for a slice from there only. */
  #confirmed = 0;
  /** The offset of the last checkpoint saved (or resumed from). */
  #saved: number;
  #saving: Promise<void> = Promise.resolve();
  #forgotten = false;
  #failure: unknown;
  #resolveRoot!: (root: Uint8Array) => void;
  #rejectRoot!: (e: unknown) => void;

  constructor(
    file: Blob,
    id: string,
    hasher: WorkerHasher,
    chunkSize: number,
    store: CheckpointStore | null,
    readInWorker: boolean,
  ) {
    this.size = file.size;
    this.id = id;
    this.#file = file;
    this.#reader = readInWorker ? null : new ReadAhead(file);
    this.#hasher = hasher;
    this.#chunkSize = chunkSize;
    this.#store = store;
    this.#sent = hasher.offset;
    this.#saved = hasher.lastCheckpoint.offset;
    this.root = new Promise<Uint8Array>((resolve, reject) => {
      this.#resolveRoot = resolve;
      this.#rejectRoot = reject;
    });
    this.root.catch(() => undefined); // read by the final request; unread when the upload stops earlier
    if (file.size === 0) {
      // No slice is ever read: the request that creates the upload finishes it.
      this.final = true;
      this.#finish();
    }
  }

  /** Bytes read from the File so far: each byte once, plus the gap read again after a resume. */
  get bytesRead(): number {
    return (this.#reader?.bytesRead ?? 0) + this.#workerRead;
  }

  async slice(start: number, end: number): Promise<TusSlice> {
    if (this.#failure !== undefined) throw this.#failure;
    end = Math.min(end, this.size);
    // tus reads a slice once the server has confirmed `start` bytes: a checkpoint at or below
    // it lets a reload resume the hash without the bytes before it.
    this.#confirmed = start;
    this.#saveCheckpoint();
    const body =
      this.#reader === null ? await this.#sliceForWorker(start, end) : await this.#readSlice(start, end, this.#reader);
    if (end === this.size && !this.final) {
      this.final = true;
      this.#finish();
    }
    return { done: this.final, value: body, size: end - start };
  }

  /**
   * The file's own slice for the request; the worker is sent what it has not hashed of the file
   * up to `end` (after a resume, the gap from its checkpoint too), a slice at a time, to read.
   */
  async #sliceForWorker(start: number, end: number): Promise<Blob> {
    while (this.#sent < end) {
      const at = this.#sent;
      const to = Math.min(end, at + this.#chunkSize);
      this.#sent = to;
      await this.#queue(this.#hasher.read(at, this.#file.slice(at, to)).then(() => void (this.#workerRead += to - at)));
    }
    return this.#file.slice(start, end);
  }

  /** Reads the slice here: its bytes are the request's body and, a copy or transferred, the worker's. */
  async #readSlice(start: number, end: number, reader: ReadAhead): Promise<Blob | Uint8Array> {
    // After a resume the hash may be behind the server: read that gap again, to hash only.
    while (this.#sent < start) {
      const at = this.#sent;
      const to = Math.min(start, at + this.#chunkSize);
      await this.#hash(at, await reader.take(at, to, Math.min(this.#chunkSize, start - to)));
    }
    const bytes = await reader.take(start, end, this.#chunkSize);
    const body = sliceBody(bytes);
    // A Blob body holds its own copy, so the bytes go to the worker as they are; bytes that are
    // the body are copied (tus may send them again).
    await this.#hash(start, body === bytes ? bytes.slice() : bytes);
    return body;
  }

  /** The upload is complete: its checkpoint goes, and none is saved after it. */
  async forget(): Promise<void> {
    this.#forgotten = true;
    const store = this.#store;
    if (store === null) return;
    this.#saving = this.#saving.catch(() => undefined).then(() => store.delete(this.id));
    await this.#saving;
  }

  close(): void {
    this.#reader?.clear();
    this.#hasher.close();
  }

  /** Sends bytes to the worker (transferred). */
  #hash(at: number, bytes: Uint8Array): Promise<void> {
    this.#sent = Math.max(this.#sent, at + bytes.length); // before the transfer empties `bytes`
    return this.#queue(this.#hasher.write(at, bytes));
  }

  /** Waits only while the worker is MAX_BACKLOG slices behind; its answer saves a checkpoint. */
  async #queue(answer: Promise<unknown>): Promise<void> {
    const written = answer.then(
      () => this.#saveCheckpoint(),
      (e: unknown) => void (this.#failure ??= e),
    );
    this.#backlog.push(written);
    if (this.#backlog.length > MAX_BACKLOG) await this.#backlog.shift();
    if (this.#failure !== undefined) throw this.#failure;
  }

  /**
   * Saves the worker's latest checkpoint if it is new and the server holds every byte it covers
   * (after a reload, tus resumes from the server's offset, never behind the hash). Saves run one
   * after another; a failed one fails the next slice.
   */
  #saveCheckpoint(): void {
    const store = this.#store;
    const checkpoint = this.#hasher.lastCheckpoint;
    if (store === null || this.#forgotten) return;
    if (checkpoint.offset <= this.#saved || checkpoint.offset > this.#confirmed) return;
    this.#saved = checkpoint.offset;
    this.#saving = this.#saving.then(() => store.set(this.id, checkpoint));
    this.#saving.catch((e: unknown) => void (this.#failure ??= e));
  }

  #finish(): void {
    // Answered after every write sent before it.
    this.#hasher.digest().then(this.#resolveRoot, this.#rejectRoot);
  }
}
