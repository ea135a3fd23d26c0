/**
 * The file source the tus adapter gives tus-js-client: each slice tus asks for goes to the request
 * and to the hashing worker. Three ways:
 * - the worker sends (browsers): tus's requests go through the worker (worker-http-stack.ts),
 *   which reads each slice once, hashes it and sends the same bytes; the page never holds them.
 * - the worker reads: tus sends the file's own slice, as it would without the
 *   adapter, and the worker is sent the same slice of the file to read and hash itself; the page
 *   never holds the bytes.
 * - the page reads (where the request needs the bytes, as tus-js-client's Node stack does): each
 *   slice is read once, the next while this one is sent (ReadAhead), and the bytes go to the
 *   request and, transferred, to the worker.
 * In the last two, nothing the request waits for waits on the hash: the worker hashes behind the
 * network, and a slice waits for it only when it falls MAX_BACKLOG
 * slices behind, which bounds memory; checkpoints come with the worker's answers and are saved
 * without holding a request back.
 * @module
 */
import type { FileBody, WireRequest, WireResponse } from './_hasher-protocol.js';
import type { CheckpointStore } from './checkpoint-store.js';
import { ReadAhead } from './read-ahead.js';
import type { RequestSender } from './worker-http-stack.js';
import type { WorkerHasher } from './worker-hasher.js';

/** A slice as tus-js-client 4 takes it from a file source. */
export type TusSlice = { done: boolean; value: Blob | Uint8Array; size: number };

/** Who reads the file: the worker for the request it sends, the worker beside the request, or the page. */
export type ReadBy = 'worker-sends' | 'worker' | 'page';

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

export class HashingSource implements RequestSender {
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
  /** The worker sends the requests: the root comes with the last one (see request()). */
  readonly #sends: boolean;
  /** The header the request with the last byte carries the root in. */
  readonly #rootHeader: string;
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
    readBy: ReadBy,
    rootHeader: string,
  ) {
    this.size = file.size;
    this.id = id;
    this.#file = file;
    this.#reader = readBy === 'page' ? new ReadAhead(file) : null;
    this.#sends = readBy === 'worker-sends';
    this.#rootHeader = rootHeader;
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

  /**
   * The request that carries the last byte brings the root with it (the worker sets the header):
   * nothing before it may wait for the root.
   */
  get rootInRequest(): boolean {
    return this.#sends && this.size > 0;
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
      this.#reader !== null
        ? await this.#readSlice(start, end, this.#reader)
        : await this.#sliceForWorker(start, this.#sends ? start : end, end);
    if (end === this.size && !this.final) {
      this.final = true;
      if (!this.#sends) this.#finish();
    }
    return { done: this.final, value: body, size: end - start };
  }

  /**
   * The file's own slice for the request; the worker is sent what it has not hashed of the file
   * up to `upTo` (after a resume, the gap from its checkpoint too), a slice at a time, to read.
   */
  async #sliceForWorker(start: number, upTo: number, end: number): Promise<Blob> {
    while (this.#sent < upTo) {
      const at = this.#sent;
      const to = Math.min(upTo, at + this.#chunkSize);
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

  /**
   * Has the worker send `req` (see worker-http-stack.ts): a body, a slice of the file from
   * `offset` that tus got from slice(), is read there once, hashed and sent; the request with the
   * last byte carries the root, which resolves `root`. Settles with the response, or rejects
   * with the error that stopped the request.
   */
  async request(
    id: number,
    req: WireRequest,
    body: { offset: number; blob: Blob } | null,
    onProgress?: (sent: number) => void,
  ): Promise<WireResponse> {
    if (this.#failure !== undefined) throw this.#failure;
    let fileBody: FileBody | null = null;
    if (body !== null) {
      const end = body.offset + body.blob.size;
      const next = Math.min(this.size, end + this.#chunkSize);
      fileBody =
        end === this.size
          ? { ...body, rootHeader: this.#rootHeader }
          : { ...body, next: { offset: end, blob: this.#file.slice(end, next) } };
    }
    const answer = await this.#hasher.request(id, req, fileBody, onProgress);
    if (body !== null && answer.state) {
      this.#workerRead += body.blob.size;
      this.#sent = Math.max(this.#sent, answer.state.offset);
      this.#saveCheckpoint();
    }
    if (answer.root) this.#resolveRoot(answer.root);
    if (answer.error) throw Object.assign(new Error(answer.error.message), { name: answer.error.name });
    return answer.response!;
  }

  abort(id: number): void {
    this.#hasher.abort(id);
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
