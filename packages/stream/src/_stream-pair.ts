/**
 * What a stream pair runs: each written chunk, the close, a failure, and the memory a BYOB reader
 * gave back.
 */
export interface PairTransformer {
  /**
   * Handles one written chunk, passing outputs to `emit`; throws (or rejects) to fail the stream.
   * `deliver(bytes)` copies a prefix of `bytes` straight into the buffer of a pending BYOB read,
   * when no output is queued before it, and returns how many bytes it took (0 when none): bytes
   * that are not the transformer's own (a view of the written chunk) then reach the reader with
   * one copy, made at once, and the transformer keeps a copy of the rest only.
   */
  write(
    chunk: Uint8Array,
    emit: (out: Uint8Array) => void,
    deliver: (bytes: Uint8Array) => number,
  ): void | Promise<void>;
  /** The writer closed: finish, emit the last outputs, or throw. */
  close(emit: (out: Uint8Array) => void): void | Promise<void>;
  /** Runs once when the stream fails: an abort, a cancel, or an error the transformer threw. */
  stop(reason: unknown): void;
  /**
   * Every output was copied out to a BYOB reader: these buffers, which held them, are the
   * transformer's to reuse. Called only when no output is pending.
   */
  recycle?(buffers: ArrayBuffer[]): void;
}

/**
 * The readable side of a `TransformStream` base: a pair on it feeds its readable side through
 * the base's writable side, whose only writer it holds, and errors it through `controller`.
 */
export type TransformBase = {
  controller: TransformStreamDefaultController<Uint8Array>;
  readable: ReadableStream<Uint8Array>;
  writable: WritableStream<Uint8Array>;
};

type SourceController = ReadableStreamDefaultController<Uint8Array> | ReadableByteStreamController;

// The constructors as this module found them, as a TransformStream uses the original ones: code
// that replaces the globals later (a polyfill, a test) does not change what these streams are made of.
const OwnReadableStream: typeof ReadableStream = globalThis.ReadableStream;
const OwnWritableStream: typeof WritableStream = globalThis.WritableStream;

let byteStreams: boolean | undefined;

/** Whether this engine has readable byte streams with BYOB readers (WebKitGTK 2.50 has not). */
function hasByteStreams(): boolean {
  if (byteStreams === undefined) {
    try {
      new OwnReadableStream({ type: 'bytes' }).getReader({ mode: 'byob' }).releaseLock();
      byteStreams = true;
    } catch {
      byteStreams = false;
    }
  }
  return byteStreams;
}

/**
 * The two sides of a transform that learns of every abort and cancel, and whose outputs reach
 * the reader before any error does.
 *
 * Both work around the platform `TransformStream`: Chromium 156, Firefox 153 and WebKitGTK 2.50
 * never call a transformer's `cancel`, neither for a cancel nor for an abort, so a transformer
 * alone cannot see them; and a TransformStream that errors discards the chunks it has enqueued
 * and the reader has not yet taken, so how much verified content a reader sees before an error
 * would depend on how fast it reads. Here the writable side is a stream of the pair's own whose
 * `write` waits until the reader has taken every output of the chunk before it reports an error
 * or takes the next chunk: the reader always gets every output, then the error.
 *
 * The readable side is either
 * - a `TransformStream` base's own (`TransformBase`), so that `TransformStream.prototype`'s getter
 *   gives it too (the web-platform-tests' brand check): outputs are written to the base's
 *   writable side, whose only writer the pair holds, and such a write resolves once a read took
 *   the output (the base's readable side holds none). A cancel of the readable side errors the
 *   base's writable side (Streams spec, TransformStreamDefaultSourceCancelAlgorithm), which that
 *   writer sees. Writes, backpressure and errors then follow an identity TransformStream with
 *   the default strategies (its writable side holds one chunk, its readable side none);
 * - or, without a base, a stream of the pair's own, a byte stream where the engine has them: a
 *   BYOB reader (`getReader({ mode: 'byob' })`) gets the outputs copied into the buffer it
 *   brings, and their memory goes back to the transformer (`recycle`) instead of a fresh array
 *   per output. A default reader gets arrays of its own, as from any stream.
 *
 * One difference from a TransformStream: an abort fails a write that waits for a read at once
 * (through the controller's `signal`), so the write rejects and the abort settles even if no
 * read ever comes; a platform TransformStream leaves both pending until a read.
 *
 * Cost, with a base: the second writable side. Against a hand-made readable/writable pair
 * (whose readable side failed the brand check), a hashing pass-through of 64 MiB in 64 KiB
 * chunks in Node 20 ran at 0.98x, 0.89x and 0.87x the pair's speed (3 runs, 9 interleaved rounds
 * each, load 0.3 on 2 cores); bench:stream in Chromium 156 and Firefox 153 showed no loss
 * (docs/BENCHMARKS.md, streams).
 */
export class StreamPair {
  readonly readable: ReadableStream<Uint8Array>;
  readonly writable: WritableStream<Uint8Array>;
  readonly #transformer: PairTransformer;
  /** The base whose readable side is the pair's, and the writer of its writable side; or none. */
  readonly #base: TransformStreamDefaultController<Uint8Array> | undefined;
  readonly #baseWriter: WritableStreamDefaultWriter<Uint8Array> | undefined;
  /** The controllers of the writable side, and of the readable side when it is the pair's own. */
  #sink!: WritableStreamDefaultController;
  #source!: SourceController;
  /** Outputs the reader has not taken yet, in order (without a base). */
  readonly #outputs: Uint8Array[] = [];
  /** Bytes of the first output already copied out to a BYOB reader. */
  #copied = 0;
  /** Buffers whose outputs were all copied out, handed back once no output is pending. */
  readonly #spent: ArrayBuffer[] = [];
  #failure: { reason: unknown } | undefined;
  #stopped = false;
  #ended = false;
  /** Whether an output was written to the base: a write may then wait for a read. */
  #written = false;
  /** The reader's pull, waiting for an output, the end or an error, with its BYOB request. */
  #waiting: { settle: () => void; request: ReadableStreamBYOBRequest | null } | undefined;
  /** The pending write, waiting for the reader to take every output. */
  #wakeWriter: (() => void) | undefined;

  constructor(transformer: PairTransformer, base?: TransformBase) {
    this.#transformer = transformer;
    this.writable = new OwnWritableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#sink = controller;
          // An abort waits for the pending write, which may wait for a read that never comes:
          // see #aborted. (No `signal` in older engines: the write then waits for a read, as
          // in a TransformStream.)
          const signal = (controller as { signal?: AbortSignal }).signal;
          signal?.addEventListener('abort', () => this.#aborted(signal.reason), { once: true });
        },
        write: (chunk) => this.#step(() => transformer.write(chunk, this.#emit, this.#deliver)),
        close: () => this.#close(),
        abort: (reason) => {
          // The source failed: the reader sees its reason at once, as with a TransformStream.
          this.#fail(reason);
          this.#errorReadable(reason);
        },
      },
      { highWaterMark: 1 },
    );
    if (base) {
      this.#base = base.controller;
      this.#baseWriter = base.writable.getWriter();
      this.readable = base.readable;
      // The base's writable side errors when its readable side is cancelled (and when the pair
      // errors it): the writer of ours then fails with the reason, which makes pipeTo cancel its source.
      this.#baseWriter.closed.catch((reason: unknown) => this.#cancelled(reason));
      return;
    }
    const source = {
      start: (controller: SourceController) => void (this.#source = controller),
      pull: (controller: SourceController) =>
        new Promise<void>((settle) => {
          const request = 'byobRequest' in controller ? controller.byobRequest : null;
          this.#waiting = { settle, request };
          this.#answer();
        }),
      cancel: (reason: unknown) => this.#cancelled(reason),
    };
    this.readable = (
      hasByteStreams()
        ? new OwnReadableStream({ ...source, type: 'bytes' } as UnderlyingByteSource)
        : new OwnReadableStream<Uint8Array>(source as UnderlyingDefaultSource<Uint8Array>, { highWaterMark: 0 })
    ) as ReadableStream<Uint8Array>;
  }

  readonly #emit = (out: Uint8Array): void => {
    // A byte stream cannot carry an empty chunk; a TransformStream passes it on.
    if (out.length > 0 || this.#base) this.#outputs.push(out);
  };

  readonly #deliver = (bytes: Uint8Array): number => {
    const waiting = this.#waiting;
    const view = waiting?.request?.view as Uint8Array | null | undefined;
    if (!view || this.#outputs.length > 0 || this.#failure || bytes.length === 0) return 0;
    const n = Math.min(view.length, bytes.length);
    view.set(n === bytes.length ? bytes : bytes.subarray(0, n));
    this.#waiting = undefined;
    waiting!.request!.respond(n);
    waiting!.settle();
    return n;
  };

  /** Runs one step of the transformer, then hands its outputs over before reporting its error. */
  #step(run: () => void | Promise<void>): void | Promise<void> {
    if (this.#failure) throw this.#failure.reason;
    let running: void | Promise<void> = undefined;
    try {
      running = run();
    } catch (err) {
      this.#failure ??= { reason: err };
    }
    if (running === undefined) return this.#handOver();
    return running.then(
      () => this.#handOver(),
      (err: unknown) => {
        // An abort or a cancel while it ran stopped it: theirs is the reason the write fails with.
        this.#failure ??= { reason: err };
        return this.#handOver();
      },
    );
  }

  /** Gives the reader the outputs; resolves once it took them all, or rejects with the failure. */
  #handOver(): void | Promise<void> {
    const outputs = this.#outputs;
    if (this.#base && outputs.length > 0) {
      // Each base write resolves once a read took its output, and the last one after the others;
      // a failure while they wait (an abort, a cancel) rejects them.
      const writer = this.#baseWriter!;
      this.#written = true;
      for (let i = 0; i < outputs.length - 1; i++) writer.write(outputs[i]).catch(() => {});
      const last = writer.write(outputs[outputs.length - 1]);
      outputs.length = 0;
      return this.#failure ? last.then(() => this.#reportFailure()) : last;
    }
    this.#answer();
    if (outputs.length === 0 || this.#stopped) return this.#reportFailure();
    return new Promise<void>((resolve) => (this.#wakeWriter = resolve)).then(() => this.#reportFailure());
  }

  /** After the outputs were handed over: a failure errors both sides with its reason. */
  #reportFailure(): void {
    const failure = this.#failure;
    if (!failure) return;
    this.#stop(failure.reason);
    // Without a base, the reader's next pull errors (#answer), after every output it was given.
    if (this.#base) this.#base.error(failure.reason);
    else this.#answer();
    throw failure.reason;
  }

  #close(): void | Promise<void> {
    const closing = this.#step(() => this.#transformer.close(this.#emit));
    return closing instanceof Promise ? closing.then(() => this.#end()) : this.#end();
  }

  /** Every output was taken: the readable side ends now, as a TransformStream's does on close. */
  #end(): void | Promise<void> {
    if (this.#base) return this.#baseWriter!.close();
    // A cancel may have come while the close was handing its outputs over.
    if (this.#failure) throw this.#failure.reason;
    this.#ended = true;
    if (this.#waiting) return this.#answer();
    const controller = this.#source;
    controller.close();
    // A BYOB read not yet pulled ends (done, its buffer given back empty) once answered with 0.
    if ('byobRequest' in controller) controller.byobRequest?.respond(0);
  }

  /**
   * The writer aborted. The abort waits for the pending write, which may wait for a read that
   * never comes: that write fails now, so that the abort settles (the readable side errors in
   * the sink's `abort`). With a base, the abort reaches its writable side at once, as an abort of
   * a TransformStream's own would; and once an output was written, the base errors at once,
   * which fails a write that waits for a read. (Not before: a cancel that follows an abort during
   * start must still succeed, as with a TransformStream.)
   */
  #aborted(reason: unknown): void {
    this.#fail(reason);
    if (this.#base) {
      this.#baseWriter!.abort(reason).catch(() => {});
      if (this.#written) this.#base.error(reason);
    }
    this.#wakeWriterUp();
  }

  /** The reader cancelled: the writer's next write fails with the reason, which makes pipeTo cancel its source. */
  #cancelled(reason: unknown): void {
    this.#fail(reason);
    this.#sink.error(reason);
    this.#wakeWriterUp();
  }

  /** The stream failed: outputs not taken are dropped and the transformer stops, once. */
  #fail(reason: unknown): void {
    this.#failure ??= { reason };
    this.#outputs.length = 0;
    this.#spent.length = 0;
    this.#copied = 0;
    this.#stop(reason);
  }

  #stop(reason: unknown): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#transformer.stop(reason);
  }

  #errorReadable(reason: unknown): void {
    if (this.#base) return this.#base.error(reason);
    this.#source.error(reason);
    this.#answer();
  }

  #wakeWriterUp(): void {
    const wake = this.#wakeWriter;
    this.#wakeWriter = undefined;
    wake?.();
  }

  /** Answers the reader's pull, if one waits: an output, the end or the error; else it waits on. */
  #answer(): void {
    const waiting = this.#waiting;
    if (!waiting) return;
    const controller = this.#source;
    const { request } = waiting;
    if (this.#outputs.length > 0) {
      if (request?.view) request.respond(this.#fill(request.view as Uint8Array));
      else {
        const out = this.#outputs[0];
        const rest = this.#copied > 0 ? out.subarray(this.#copied) : out;
        this.#shift(false);
        controller.enqueue(own(rest));
      }
    } else if (this.#failure) controller.error(this.#failure.reason);
    else if (this.#ended) {
      controller.close();
      // A pending BYOB read ends (done, its buffer given back empty) once answered with 0.
      request?.respond(0);
    } else return;
    this.#waiting = undefined;
    waiting.settle();
  }

  /** Copies pending outputs into a BYOB reader's view, as many as fit; the bytes copied. */
  #fill(view: Uint8Array): number {
    const outputs = this.#outputs;
    let n = 0;
    while (n < view.length && outputs.length > 0) {
      const out = outputs[0];
      const m = Math.min(view.length - n, out.length - this.#copied);
      view.set(out.subarray(this.#copied, this.#copied + m), n);
      n += m;
      this.#copied += m;
      if (this.#copied === out.length) this.#shift(true);
    }
    return n;
  }

  /** The first output was taken whole: copied out (`recyclable`), or enqueued. */
  #shift(recyclable: boolean): void {
    const out = this.#outputs.shift()!;
    const spent = this.#spent;
    this.#copied = 0;
    // A buffer enqueued to a default reader left us (transferred: length 0) or is the reader's.
    if (recyclable && out.buffer.byteLength > 0 && !spent.includes(out.buffer as ArrayBuffer))
      spent.push(out.buffer as ArrayBuffer);
    else if (!recyclable) {
      // An earlier output of the same buffer copied out does not make it free again.
      const i = spent.indexOf(out.buffer as ArrayBuffer);
      if (i >= 0) spent.splice(i, 1);
    }
    if (this.#outputs.length > 0) return;
    if (spent.length > 0) this.#transformer.recycle?.(spent.splice(0));
    this.#wakeWriterUp();
  }
}

/**
 * `out` as a chunk for a default reader: an array alone in its buffer as is (a byte stream
 * transfers the buffer, a plain one hands it on), a view of a larger buffer copied, so a reader
 * never reaches bytes beyond the view (they may be unverified) through `.buffer`.
 */
function own(out: Uint8Array): Uint8Array<ArrayBuffer> {
  // Outputs are the transformer's own arrays, never views of shared memory.
  const whole = out.byteOffset === 0 && out.byteLength === out.buffer.byteLength;
  return (whole ? out : out.slice()) as Uint8Array<ArrayBuffer>;
}
