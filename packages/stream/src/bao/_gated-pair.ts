/**
 * The two sides of a transform whose output reaches the reader before any error does.
 *
 * A `TransformStream` that errors discards the chunks it has enqueued and the reader has not yet
 * taken, so how much verified content a reader sees before an IntegrityError would depend on
 * how fast it reads. Here the writable side's `write` waits until the reader has taken every
 * output of the chunk before it reports an error or takes the next chunk: the reader always gets
 * all content that was verified, then the error.
 *
 * Where the engine has readable byte streams the readable side is one, so a BYOB reader
 * (`getReader({ mode: 'byob' })`) gets the outputs copied into the buffer it brings, and their
 * memory goes back to the transformer (`recycle`) instead of a fresh array per output. A default
 * reader gets arrays of its own, as from any stream.
 */
export interface GatedTransformer {
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
  /** The writer aborted or the reader cancelled: release resources (an outboard reader). */
  stop(reason: unknown): void;
  /**
   * Every output was copied out to a BYOB reader: these buffers, which held them, are the
   * transformer's to reuse. Called only when no output is pending.
   */
  recycle(buffers: ArrayBuffer[]): void;
}

type Controller = ReadableStreamDefaultController<Uint8Array> | ReadableByteStreamController;

let byteStreams: boolean | undefined;

/** Whether this engine has readable byte streams with BYOB readers (WebKitGTK 2.50 has not). */
function hasByteStreams(): boolean {
  if (byteStreams === undefined) {
    try {
      new ReadableStream({ type: 'bytes' }).getReader({ mode: 'byob' }).releaseLock();
      byteStreams = true;
    } catch {
      byteStreams = false;
    }
  }
  return byteStreams;
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

export function gatedPair(transformer: GatedTransformer): {
  readable: ReadableStream<Uint8Array>;
  writable: WritableStream<Uint8Array>;
} {
  const outputs: Uint8Array[] = [];
  /** Bytes of the first output already copied out to a BYOB reader. */
  let copied = 0;
  /** Buffers whose outputs were all copied out, handed back once no output is pending. */
  const spent: ArrayBuffer[] = [];
  let failure: { reason: unknown } | undefined;
  let ended = false;
  let stopped = false;
  /** The pending pull, waiting for an output, the end or an error. */
  let wakeReader: (() => void) | undefined;
  /** The pending pull's BYOB request and how to settle the pull, while it waits. */
  let waitingRequest: ReadableStreamBYOBRequest | undefined;
  let settleWaiting: (() => void) | undefined;
  /** The pending write, waiting for the reader to take every output. */
  let wakeWriter: (() => void) | undefined;
  let writableController!: WritableStreamDefaultController;
  let readableController!: Controller;

  const emit = (out: Uint8Array): void => {
    if (out.length > 0) outputs.push(out);
  };
  const deliver = (bytes: Uint8Array): number => {
    const request = waitingRequest;
    const view = request?.view as Uint8Array | null | undefined;
    if (!request || !view || outputs.length > 0 || failure || bytes.length === 0) return 0;
    const n = Math.min(view.length, bytes.length);
    view.set(n === bytes.length ? bytes : bytes.subarray(0, n));
    const settle = settleWaiting;
    wakeReader = waitingRequest = settleWaiting = undefined;
    request.respond(n);
    settle?.();
    return n;
  };
  const notifyReader = (): void => {
    const wake = wakeReader;
    wakeReader = undefined;
    wake?.();
  };
  const drained = (): Promise<void> =>
    outputs.length === 0 || stopped ? Promise.resolve() : new Promise<void>((resolve) => (wakeWriter = resolve));
  const notifyWriter = (): void => {
    const wake = wakeWriter;
    wakeWriter = undefined;
    wake?.();
  };
  const clear = (): void => {
    outputs.length = 0;
    spent.length = 0;
    copied = 0;
  };
  const stop = (reason: unknown): void => {
    if (stopped) return;
    stopped = true;
    transformer.stop(reason);
  };
  /** The first output was taken whole. */
  const shift = (recyclable: boolean): void => {
    const out = outputs.shift()!;
    copied = 0;
    // A buffer enqueued to a default reader left us (transferred: length 0) or is the reader's.
    if (recyclable && out.buffer.byteLength > 0 && !spent.includes(out.buffer as ArrayBuffer))
      spent.push(out.buffer as ArrayBuffer);
    else if (!recyclable) {
      // An earlier output of the same buffer copied out does not make it free again.
      const i = spent.indexOf(out.buffer as ArrayBuffer);
      if (i >= 0) spent.splice(i, 1);
    }
    if (outputs.length > 0) return;
    if (spent.length > 0) transformer.recycle(spent.splice(0));
    notifyWriter();
  };
  /** Copies pending outputs into a BYOB reader's view, as many as fit; the bytes copied. */
  const fill = (view: Uint8Array): number => {
    let n = 0;
    while (n < view.length && outputs.length > 0) {
      const out = outputs[0];
      const m = Math.min(view.length - n, out.length - copied);
      view.set(out.subarray(copied, copied + m), n);
      n += m;
      copied += m;
      if (copied === out.length) shift(true);
    }
    return n;
  };
  /** Runs one step of the transformer, then hands its outputs over before reporting its error. */
  const step = async (run: () => void | Promise<void>): Promise<void> => {
    if (failure) throw failure.reason;
    try {
      await run();
    } catch (err) {
      // An abort or a cancel while it ran stopped it: theirs is the reason the write fails with.
      failure ??= { reason: err };
    }
    notifyReader();
    await drained();
    if (failure) {
      stop(failure.reason);
      throw failure.reason;
    }
  };

  const writable = new WritableStream<Uint8Array>({
    start(controller) {
      writableController = controller;
      // An abort waits for the pending write, which may wait for a read that never comes: fail
      // that write now, so that the abort settles. The readable side errors in `abort`. (No
      // `signal` in older engines: the write then waits for a read, as in a TransformStream.)
      const signal = (controller as { signal?: AbortSignal }).signal;
      signal?.addEventListener(
        'abort',
        () => {
          failure ??= { reason: signal.reason };
          clear();
          stop(signal.reason);
          notifyWriter();
        },
        { once: true },
      );
    },
    write: (chunk) => step(() => transformer.write(chunk, emit, deliver)),
    close: () =>
      step(async () => {
        await transformer.close(emit);
        ended = true;
      }),
    abort(reason) {
      // The source failed: the reader sees its reason at once, as with a TransformStream.
      failure ??= { reason };
      clear();
      stop(reason);
      readableController.error(reason);
      notifyReader();
    },
  });

  const bytes = hasByteStreams();
  const source = {
    start(controller: Controller) {
      readableController = controller;
    },
    pull(controller: Controller) {
      const request = 'byobRequest' in controller ? controller.byobRequest : null;
      return new Promise<void>((resolve) => {
        const serve = (): void => {
          waitingRequest = settleWaiting = undefined;
          if (outputs.length > 0) {
            if (request?.view) request.respond(fill(request.view as Uint8Array));
            else {
              const out = outputs[0];
              const rest = copied > 0 ? out.subarray(copied) : out;
              shift(false);
              controller.enqueue(own(rest));
            }
          } else if (failure) controller.error(failure.reason);
          else if (ended) {
            controller.close();
            // A pending BYOB read ends (done, its buffer given back empty) once answered with 0.
            request?.respond(0);
          } else {
            wakeReader = serve;
            waitingRequest = request ?? undefined;
            settleWaiting = resolve;
            return;
          }
          resolve();
        };
        serve();
      });
    },
    cancel(reason: unknown) {
      failure ??= { reason };
      clear();
      stop(reason);
      // The writer's next write fails with the reason, which makes pipeTo cancel its source.
      writableController.error(reason);
      notifyWriter();
    },
  };
  const readable = bytes
    ? new ReadableStream({ ...source, type: 'bytes' } as UnderlyingByteSource)
    : new ReadableStream<Uint8Array>(source as UnderlyingDefaultSource<Uint8Array>, { highWaterMark: 0 });
  return { readable: readable as ReadableStream<Uint8Array>, writable };
}
