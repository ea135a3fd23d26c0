/**
 * The two sides of a transform whose output reaches the reader before any error does.
 *
 * A `TransformStream` that errors discards the chunks it has enqueued and the reader has not yet
 * taken, so how much verified content a reader sees before an IntegrityError would depend on
 * how fast it reads. Here the writable side's `write` waits until the reader has taken every
 * output of the chunk before it reports an error or takes the next chunk: the reader always gets
 * all content that was verified, then the error.
 */
export interface GatedTransformer {
  /** Handles one written chunk, passing outputs to `emit`; throws (or rejects) to fail the stream. */
  write(chunk: Uint8Array, emit: (out: Uint8Array) => void): void | Promise<void>;
  /** The writer closed: finish, emit the last outputs, or throw. */
  close(emit: (out: Uint8Array) => void): void | Promise<void>;
  /** The writer aborted or the reader cancelled: release resources (an outboard reader). */
  stop(reason: unknown): void;
}

export function gatedPair(transformer: GatedTransformer): {
  readable: ReadableStream<Uint8Array>;
  writable: WritableStream<Uint8Array>;
} {
  const outputs: Uint8Array[] = [];
  let failure: { reason: unknown } | undefined;
  let ended = false;
  let stopped = false;
  /** The pending pull, waiting for an output, the end or an error. */
  let wakeReader: (() => void) | undefined;
  /** The pending write, waiting for the reader to take every output. */
  let wakeWriter: (() => void) | undefined;
  let writableController!: WritableStreamDefaultController;
  let readableController!: ReadableStreamDefaultController<Uint8Array>;

  const emit = (out: Uint8Array): void => {
    if (out.length > 0) outputs.push(out);
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
  const stop = (reason: unknown): void => {
    if (stopped) return;
    stopped = true;
    transformer.stop(reason);
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
          outputs.length = 0;
          stop(signal.reason);
          notifyWriter();
        },
        { once: true },
      );
    },
    write: (chunk) => step(() => transformer.write(chunk, emit)),
    close: () =>
      step(async () => {
        await transformer.close(emit);
        ended = true;
      }),
    abort(reason) {
      // The source failed: the reader sees its reason at once, as with a TransformStream.
      failure ??= { reason };
      outputs.length = 0;
      stop(reason);
      readableController.error(reason);
      notifyReader();
    },
  });

  const readable = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        readableController = controller;
      },
      pull(controller) {
        return new Promise<void>((resolve) => {
          const serve = (): void => {
            if (outputs.length > 0) {
              controller.enqueue(outputs.shift()!);
              if (outputs.length === 0) notifyWriter();
            } else if (failure) controller.error(failure.reason);
            else if (ended) controller.close();
            else return void (wakeReader = serve);
            resolve();
          };
          serve();
        });
      },
      cancel(reason) {
        failure ??= { reason };
        outputs.length = 0;
        stop(reason);
        // The writer's next write fails with the reason, which makes pipeTo cancel its source.
        writableController.error(reason);
        notifyWriter();
      },
    },
    { highWaterMark: 0 },
  );
  return { readable, writable };
}
