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
import { LivenessProbe, WorkerDiedError } from '@blake3-web/worker/_internal';
import { releaseProxy, transfer, wrap, type Endpoint, type Remote } from 'comlink';
import { aUint8Array, anumber, describe } from './_assert.js';
import type { HasherState, HasherWorkerApi } from './_hasher-protocol.js';
import type { Checkpoint, CheckpointState } from './checkpoint.js';
import type { UploadHasherOpts } from './upload-hasher.js';

/** How long a new worker may take to answer its first call (loading and compiling included). */
const START_MS = 15_000;
/** How long a worker with calls pending may stay silent before it is probed, and the probe unanswered. */
const LIVENESS_MS = 10_000;

/** A Web Worker, a MessagePort, or any comlink endpoint serving serveHasher(). */
export type HasherEndpoint = Endpoint & { terminate?: () => void; close?: () => void };

export class WorkerHasher {
  readonly #endpoint: HasherEndpoint;
  readonly #remote: Remote<HasherWorkerApi>;
  readonly #pending = new Set<(e: Error) => void>();
  readonly #onError: (e: Event) => void;
  readonly #liveness: LivenessProbe;
  #failed: Error | undefined;
  /** The state in the worker's last answer. */
  #state!: HasherState;
  /** The last call sent: the worker answers in order, so when it settles every call has. */
  #last: Promise<unknown> = Promise.resolve();

  private constructor(endpoint: HasherEndpoint, livenessMs: number) {
    this.#endpoint = endpoint;
    this.#remote = wrap<HasherWorkerApi>(endpoint);
    this.#liveness = new LivenessProbe(
      livenessMs,
      () => this.#remote.ping(),
      (silentMs) => {
        this.#fail(new WorkerDiedError(`the hashing worker did not answer for ${silentMs} ms`));
        this.close(); // a worker stuck in a loop must not keep a core busy for nobody
      },
    );
    this.#onError = (e: Event) => {
      e.preventDefault?.();
      // A worker that did not start at all says why and how to fix it (a WorkerStartError).
      const { error, message } = e as ErrorEvent;
      this.#fail(
        error instanceof Error ? error : new WorkerDiedError(`the hashing worker failed: ${message || e.type}`),
      );
    };
    endpoint.addEventListener('error', this.#onError);
    endpoint.addEventListener('messageerror', this.#onError);
  }

  /**
   * Opens a hasher served on `endpoint` (resuming from `opts.checkpoint`, checked in the worker).
   * A worker that has not answered within `startMs` (its script never ran: a bundler that left it
   * out, a server that sends something else, a worker stuck starting) is closed, and this rejects.
   * Once open, a worker that leaves calls unanswered and then a probe for `livenessMs` fails them.
   */
  static async open(
    endpoint: HasherEndpoint,
    opts: UploadHasherOpts = {},
    startMs = START_MS,
    livenessMs = LIVENESS_MS,
  ): Promise<WorkerHasher> {
    if (typeof endpoint !== 'object' || endpoint === null || typeof endpoint.postMessage !== 'function') {
      throw new TypeError(`endpoint must be a Worker or a MessagePort, got ${describe(endpoint)}`);
    }
    const hasher = new WorkerHasher(endpoint, livenessMs);
    const silent = setTimeout(
      () =>
        hasher.#fail(
          new Error(
            `the hashing worker did not answer within ${startMs} ms: its script did not start (is hash-worker.bundle.js served beside the package, or does createWorker start something else?)`,
          ),
        ),
      startMs,
    );
    try {
      hasher.#state = await hasher.#call((r) => r.open(opts));
    } catch (e) {
      hasher.close();
      throw e;
    } finally {
      clearTimeout(silent);
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
    if (this.#failed) throw this.#failed;
    return this.#state.checkpoint;
  }

  digest(dkLen = 32): Promise<Uint8Array> {
    return this.#call((r) => r.digest(dkLen));
  }

  /** Stops the worker; pending calls reject. */
  close(): void {
    this.#fail(new Error('the hasher was closed'));
    this.#endpoint.removeEventListener('error', this.#onError);
    this.#endpoint.removeEventListener('messageerror', this.#onError);
    this.#remote[releaseProxy]();
    this.#endpoint.terminate?.();
    this.#endpoint.close?.();
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
    if (this.#failed) return Promise.reject(this.#failed);
    return new Promise<T>((resolve, reject) => {
      this.#pending.add(reject);
      this.#liveness.watch(true);
      const settle = () => {
        this.#liveness.heard();
        this.#pending.delete(reject);
        if (this.#pending.size === 0) this.#liveness.watch(false);
      };
      run(this.#remote).then(
        (v) => {
          settle();
          resolve(v);
        },
        (e: unknown) => {
          settle();
          reject(e);
        },
      );
    });
  }

  #fail(reason: Error): void {
    this.#failed ??= reason;
    this.#liveness.watch(false);
    for (const reject of this.#pending) reject(this.#failed);
    this.#pending.clear();
  }
}
