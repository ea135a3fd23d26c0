/**
 * An UploadHasher in a worker, so hashing never blocks the page: the worker reads the slices of
 * the file it is sent (`read`), or takes bytes the page has read (`write`). Calls are answered in
 * order; a worker that fails (its script does not load, it throws outside a call, it stops
 * answering) rejects every pending and later call instead of leaving them to hang.
 *
 * @example
 * ```ts
 * import { WorkerHasher, startHashWorker } from '@blake3-web/upload';
 * const hasher = await WorkerHasher.open(startHashWorker(), { upload: 'my-file' });
 * await hasher.read(0, file.slice(0, 8 << 20)); // the worker reads these bytes of the file
 * await hasher.write(8 << 20, bytes.slice()); // or: a copy of bytes read here, transferred
 * const root = await hasher.digest();
 * hasher.close();
 * ```
 * @module
 */
import { webWorkerPort, WorkerHandle } from '@blake3-web/worker/_internal';
import { transfer, type Endpoint, type Remote } from 'comlink';
import { aUint8Array, anumber, describe } from './_assert.js';
import type { HasherState, HasherWorkerApi } from './_hasher-protocol.js';
import { CheckpointError, type Checkpoint, type CheckpointState } from './checkpoint.js';
import type { UploadHasherOpts } from './upload-hasher.js';

/** How long a new worker may take to answer its first call (loading and compiling included). */
const START_MS = 15_000;
/** How long a worker with calls pending may stay silent before it is probed, and the probe unanswered. */
const LIVENESS_MS = 10_000;
const NAME = 'the hashing worker';

/** A Web Worker, a MessagePort, or any comlink endpoint serving serveHasher(). */
export type HasherEndpoint = Endpoint & { terminate?: () => void; close?: () => void };

export class WorkerHasher {
  readonly #handle: WorkerHandle<HasherWorkerApi, HasherEndpoint>;
  /** The state in the worker's last answer. */
  #state!: HasherState;
  /** The last call sent: the worker answers in order, so when it settles every call has. */
  #last: Promise<unknown> = Promise.resolve();

  private constructor(endpoint: HasherEndpoint, startMs: number, livenessMs: number) {
    this.#handle = new WorkerHandle(endpoint, {
      adapt: (worker, onDeath) => webWorkerPort(worker, onDeath, NAME),
      livenessMs,
      name: NAME,
      // A checkpoint the worker refuses comes back a CheckpointError, with its reason.
      knownErrors: { CheckpointError },
      start: {
        ms: startMs,
        hint: 'is hash-worker.bundle.js served beside the package, or does createWorker start something else?',
      },
    });
  }

  /**
   * Opens a hasher served on `endpoint` (resuming from `opts.checkpoint`, checked in the worker).
   * A worker that has not answered within `startMs` (its script never ran: a bundler that left it
   * out, a server that sends something else, a worker stuck starting) is closed, and this rejects
   * with a WorkerDiedError. Once open, a worker that leaves calls unanswered and then a probe for
   * `livenessMs` fails them.
   */
  static async open(
    endpoint: HasherEndpoint,
    opts: UploadHasherOpts = {},
    startMs: number = START_MS,
    livenessMs: number = LIVENESS_MS,
  ): Promise<WorkerHasher> {
    if (typeof endpoint !== 'object' || endpoint === null || typeof endpoint.postMessage !== 'function') {
      throw new TypeError(`endpoint must be a Worker or a MessagePort, got ${describe(endpoint)}`);
    }
    const hasher = new WorkerHasher(endpoint, startMs, livenessMs);
    try {
      hasher.#state = await hasher.#call((r) => r.open(opts));
    } catch (e) {
      hasher.close();
      throw e;
    }
    return hasher;
  }

  /** Bytes taken, as of the last answer from the worker. */
  get offset(): number {
    return this.#state.offset;
  }

  /** The checkpoint as of the last answer from the worker (writes still in flight are not in it). */
  get lastCheckpoint(): Checkpoint {
    return this.#state.checkpoint;
  }

  /** UploadHasher.confirmed, as of the last answer from the worker. */
  get confirmed(): boolean | undefined {
    return this.#state.confirmed;
  }

  /** UploadHasher.expect in the worker; resolves to the offset taken. */
  expect(state: CheckpointState): Promise<number> {
    return this.#taken(this.#call((r) => r.expect(state)));
  }

  /**
   * Checks the input against a stored checkpoint of `upload` (unchecked, as a CheckpointStore
   * gives it), in the worker: there it is read (readCheckpoint, in the hasher's mode; one that
   * covers `size` bytes or more is refused too) and its state expected (UploadHasher.expect). A
   * checkpoint refused rejects with its CheckpointError. Resolves to the offset at which the
   * input will be checked (see `confirmed`), or undefined when the hasher has already taken more
   * than the checkpoint covers and cannot check it.
   */
  expectCheckpoint(
    checkpoint: unknown,
    upload: string,
    size: number = Number.MAX_SAFE_INTEGER,
  ): Promise<number | undefined> {
    try {
      if (typeof upload !== 'string') throw new TypeError(`upload must be a string, got ${describe(upload)}`);
      anumber(size, 'size');
    } catch (e) {
      return Promise.reject(e);
    }
    const answer = this.#call((r) => r.expectCheckpoint(checkpoint, upload, size)).then((state) => {
      this.#state = state;
      return state.expecting;
    });
    this.#last = answer;
    return answer;
  }

  /**
   * UploadHasher.write in the worker. `bytes` is transferred (its buffer is detached here): pass
   * a copy of anything still needed. Resolves to the offset taken after it.
   */
  write(offset: number, bytes: Uint8Array): Promise<number> {
    try {
      anumber(offset, 'offset');
      aUint8Array(bytes, 'bytes');
    } catch (e) {
      return Promise.reject(e);
    }
    return this.#taken(this.#call((r) => r.write(offset, transfer(bytes, [bytes.buffer]))));
  }

  /**
   * The worker reads `blob` (a slice of the file, starting at byte `offset` of the input) and
   * writes its bytes: the page never holds them. Resolves to the offset taken after it.
   */
  read(offset: number, blob: Blob): Promise<number> {
    try {
      anumber(offset, 'offset');
      if (!(blob instanceof Blob)) throw new TypeError(`blob must be a Blob, got ${describe(blob)}`);
    } catch (e) {
      return Promise.reject(e);
    }
    return this.#taken(this.#call((r) => r.read(offset, blob)));
  }

  /** The checkpoint after every write sent so far (it comes with their answers: no message of its own). */
  async checkpoint(): Promise<Checkpoint> {
    await this.#last.catch(() => undefined); // a refused write leaves the state as it was
    const stopped = this.#handle.stopped;
    if (stopped) throw stopped;
    return this.#state.checkpoint;
  }

  digest(dkLen = 32): Promise<Uint8Array> {
    return this.#call((r) => r.digest(dkLen));
  }

  /** Stops the worker; pending calls reject. */
  close(): void {
    this.#handle.terminate(new Error('the hasher was closed'));
  }

  #taken(answer: Promise<HasherState>): Promise<number> {
    const taken = answer.then((state) => {
      this.#state = state;
      return state.offset;
    });
    this.#last = taken;
    return taken;
  }

  #call<T>(run: (remote: Remote<HasherWorkerApi>) => Promise<T>): Promise<T> {
    return this.#handle.call(run);
  }
}
