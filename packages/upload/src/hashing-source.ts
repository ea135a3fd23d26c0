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
import { checkpointFor, CheckpointError } from './checkpoint.js';
import type { CheckpointStore } from './checkpoint-store.js';
import { ReadAhead } from './read-ahead.js';
import type { WorkerHasher } from './worker-hasher.js';

/** A slice as tus-js-client 4 takes it from a file source. */
export type TusSlice = { done: boolean; value: Blob | Uint8Array; size: number };

/**
 * Saved state the adapter could not use, and what it did instead (`onDiscard` of blake3Tus):
 * - 'corrupt', 'version', 'foreign': the checkpoint saved for the upload was refused (see
 *   CheckpointError); it is deleted and the upload goes on, its hash read from the file.
 * - 'other-file': the upload tus resumed holds another file's bytes (its checkpoint does not
 *   match this file, or its length differs); the checkpoint is deleted and a fresh upload is
 *   started in its place.
 * - 'refused': the server refused the upload (460); its checkpoint is deleted. A resumed upload,
 *   whose bytes on the server were not all this page's, is started afresh (`fresh`); a refused
 *   upload this page made from the start is the upload's error.
 */
export type Blake3TusDiscard = {
  reason: CheckpointError['reason'] | 'other-file' | 'refused';
  /** The upload (its URL) the state belonged to. */
  url: string;
  /** A fresh upload takes the place of this one. */
  fresh: boolean;
  message: string;
};
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
  readonly #onDiscard: (event: Blake3TusDiscard) => void;
  readonly #backlog: Promise<unknown>[] = [];
  /** The upload the requests go to (its URL), once known: checkpoints are kept under it. */
  #url: string | undefined;
  /** The upload was resumed, not created here: not all its bytes on the server were sent by this page. */
  #resumed = false;
  /** Uploads whose bytes on the server are not this file's: tus is told they are gone. */
  readonly #abandoned = new Set<string>();
  /** The next retry tus considers is the one that replaces a refused resumed upload. */
  #retryFresh = false;
  /** Where the bytes sent to the worker end: its offset once it has hashed them all. */
  #sent = 0;
  /** The offset the server has confirmed: tus asks for a slice from there only. */
  #confirmed = 0;
  /** The offset of the last checkpoint saved. */
  #saved = 0;
  #saving: Promise<void> = Promise.resolve();
  #forgotten = false;
  #failure: unknown;
  #resolveRoot!: (root: Uint8Array) => void;
  #rejectRoot!: (e: unknown) => void;

  constructor(
    file: Blob,
    hasher: WorkerHasher,
    chunkSize: number,
    store: CheckpointStore | null,
    readInWorker: boolean,
    onDiscard: (event: Blake3TusDiscard) => void,
  ) {
    this.size = file.size;
    this.#file = file;
    this.#reader = readInWorker ? null : new ReadAhead(file);
    this.#hasher = hasher;
    this.#chunkSize = chunkSize;
    this.#store = store;
    this.#onDiscard = onDiscard;
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

  /** Bytes read from the File so far: each byte once, plus the part the server holds after a resume. */
  get bytesRead(): number {
    return (this.#reader?.bytesRead ?? 0) + this.#workerRead;
  }

  /** tus created the upload at `url`: every byte it holds will come from here. */
  created(url: string): void {
    this.#url = url;
    this.#resumed = false;
    this.#saved = 0;
  }

  /**
   * tus resumes the upload at `url`, `length` bytes long (undefined if the server did not say).
   * Resolves to false when that upload is not this file's, and tus must start a fresh one: its
   * length differs, or the checkpoint saved for it (the state of the bytes this page sent there)
   * does not match this file's first bytes, which the worker hashes from the file to tell. The
   * hash is always of the file itself: a checkpoint is compared with, never resumed from.
   */
  async resume(url: string, length: number | undefined): Promise<boolean> {
    if (this.#abandoned.has(url)) return false;
    if (url === this.#url) return true; // a request of this upload retried
    if (length !== undefined && length !== this.size)
      return this.#abandon(url, `the upload at ${url} is ${length} bytes long, this file ${this.size}`);
    const expecting = await this.#expectSaved(url);
    let matches = true;
    if (expecting !== undefined) {
      await this.#hashTo(expecting);
      await Promise.all(this.#backlog);
      if (this.#failure !== undefined) throw this.#failure;
      matches = this.#hasher.confirmed === true;
    }
    if (matches) {
      // Known as this upload only now: a check cut short is made again when tus retries.
      this.#url = url;
      this.#resumed = true;
      this.#saved = 0;
      return true;
    }
    return this.#abandon(
      url,
      `the first ${expecting} bytes of this file are not those sent to the upload at ${url}: it is another file's`,
    );
  }

  /**
   * The server refused the upload (460) and discarded it: its checkpoint goes. A resumed upload
   * may hold bytes another file sent there, so tus is let retry it once, as a fresh upload.
   */
  async refused(): Promise<void> {
    const url = this.#url;
    if (url === undefined) return;
    this.#url = undefined;
    this.#abandoned.add(url);
    this.#retryFresh = this.#resumed;
    await this.#delete(url);
    this.#onDiscard({
      reason: 'refused',
      url,
      fresh: this.#resumed,
      message: this.#resumed
        ? `the server refused the resumed upload at ${url}; a fresh upload takes its place`
        : `the server refused the upload at ${url}; its saved state was deleted`,
    });
  }

  /** Whether the retry tus considers now is the fresh upload that replaces a refused one (asked once). */
  takeFreshRetry(): boolean {
    const fresh = this.#retryFresh;
    this.#retryFresh = false;
    return fresh;
  }

  async slice(start: number, end: number): Promise<TusSlice> {
    if (this.#failure !== undefined) throw this.#failure;
    end = Math.min(end, this.size);
    // tus reads a slice once the server has confirmed `start` bytes: a checkpoint at or below
    // it is the state of bytes the server holds.
    this.#confirmed = start;
    this.#saveCheckpoint();
    const body =
      this.#reader === null ? await this.#sliceForWorker(start, end) : await this.#readSlice(start, end, this.#reader);
    if (end === this.size && !this.final) {
      this.final = true;
      this.#finish();
    }
    return { done: end === this.size, value: body, size: end - start };
  }

  /**
   * The file's own slice for the request; the worker is sent what it has not hashed of the file
   * up to `end` (after a resume, the part the server holds too), a slice at a time, to read.
   */
  async #sliceForWorker(start: number, end: number): Promise<Blob> {
    await this.#hashTo(end);
    return this.#file.slice(start, end);
  }

  /** Reads the slice here: its bytes are the request's body and, a copy or transferred, the worker's. */
  async #readSlice(start: number, end: number, reader: ReadAhead): Promise<Blob | Uint8Array> {
    // After a resume the hash is behind the server: read that part again, to hash only.
    await this.#hashTo(start);
    const bytes = await reader.take(start, end, this.#chunkSize);
    const body = sliceBody(bytes);
    // A Blob body holds its own copy, so the bytes go to the worker as they are; bytes that are
    // the body are copied (tus may send them again).
    await this.#hash(start, body === bytes ? bytes.slice() : bytes);
    return body;
  }

  /** Sends the worker the file's bytes it has not been sent up to `end`, a slice at a time. */
  async #hashTo(end: number): Promise<void> {
    const reader = this.#reader;
    while (this.#sent < end) {
      const at = this.#sent;
      const to = Math.min(end, at + this.#chunkSize);
      if (reader === null) {
        this.#sent = to;
        await this.#queue(
          this.#hasher.read(at, this.#file.slice(at, to)).then(() => void (this.#workerRead += to - at)),
        );
      } else await this.#hash(at, await reader.take(at, to, Math.min(this.#chunkSize, end - to)));
    }
  }

  /** The upload is complete: its checkpoint goes, and none is saved after it. */
  async forget(): Promise<void> {
    this.#forgotten = true;
    if (this.#url !== undefined) await this.#delete(this.#url);
  }

  close(): void {
    this.#reader?.clear();
    this.#hasher.close();
  }

  /**
   * Has the worker check the input against the checkpoint saved for `url` (the worker reads it:
   * see serve-hasher.ts) and resolves to the offset it is checked at, or undefined when there is
   * none to check. A refused checkpoint is deleted and reported.
   */
  async #expectSaved(url: string): Promise<number | undefined> {
    const saved = await this.#store?.get(url);
    if (saved === undefined) return undefined;
    try {
      return await this.#hasher.expectCheckpoint(saved, url, this.size);
    } catch (e) {
      if (!(e instanceof CheckpointError)) throw e;
      await this.#delete(url);
      this.#onDiscard({ reason: e.reason, url, fresh: false, message: `${e.message}; it was deleted` });
      return undefined;
    }
  }

  /** Leaves the upload at `url` for a fresh one: tus is told it is gone (see tus.ts). */
  async #abandon(url: string, why: string): Promise<false> {
    this.#url = undefined;
    this.#abandoned.add(url);
    await this.#delete(url);
    this.#onDiscard({ reason: 'other-file', url, fresh: true, message: `${why}; a fresh upload takes its place` });
    return false;
  }

  /** Deletes the checkpoint kept for `url`, after any save under way. */
  async #delete(url: string): Promise<void> {
    const store = this.#store;
    if (store === null) return;
    this.#saving = this.#saving.catch(() => undefined).then(() => store.delete(url));
    await this.#saving;
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
   * Saves the worker's latest checkpoint, under the upload's URL, if it is new and the server
   * holds every byte it covers (after a reload, tus resumes from the server's offset, never
   * behind the hash). Saves run one after another; a failed one fails the next slice.
   */
  #saveCheckpoint(): void {
    const store = this.#store;
    const url = this.#url;
    const checkpoint = this.#hasher.lastCheckpoint;
    if (store === null || url === undefined || this.#forgotten) return;
    if (checkpoint.offset <= this.#saved || checkpoint.offset > this.#confirmed) return;
    this.#saved = checkpoint.offset;
    this.#saving = this.#saving.then(() => store.set(url, checkpointFor(checkpoint, url)));
    this.#saving.catch((e: unknown) => void (this.#failure ??= e));
  }

  #finish(): void {
    // Answered after every write sent before it.
    this.#hasher.digest().then(this.#resolveRoot, this.#rejectRoot);
  }
}
