import { aChunk } from './_assert.js';

export type PassThroughHooks = {
  /** Sees a copy of every chunk before it is passed on; throwing errors both sides. */
  chunk(chunk: Uint8Array): void;
  /** Runs when the writable side closes; throwing errors the readable side instead of closing it. */
  close(): void;
  /** Runs once when the stream fails: an abort, a cancel, or an error thrown by a hook. */
  fail(reason: unknown): void;
};

/**
 * A writable/readable pair that passes copies of Uint8Array chunks through, for a
 * `TransformStream` subclass that must learn of aborts and cancels: Chromium 156 and Firefox 153
 * never call a transformer's `cancel` hook, so a transformer cannot see them.
 *
 * It follows the identity TransformStream with the default strategies step by step (Streams
 * spec, "Transform streams"): the writable side holds one chunk, the readable side none, and a
 * write waits for a read before it passes its chunk on. One difference: an abort reaches a
 * write that waits for a read at once (through the controller's `signal`), so the write rejects
 * and the abort settles even if no read ever comes; a platform TransformStream leaves both
 * pending until a read.
 *
 * Against a TransformStream with a transformer doing the same (copy, hash, enqueue), 64 MiB in
 * 64 KiB chunks in Node 20 ran at 0.57x and 0.63x one-shot (CPU time) through this pair and at
 * 0.52x and 0.67x through the transformer, in two runs at load 12-14 on 2 cores: the same within
 * noise. The copy is what costs (docs/BENCHMARKS.md, streams).
 */
export function passThrough(hooks: PassThroughHooks): {
  readable: ReadableStream<Uint8Array>;
  writable: WritableStream<Uint8Array>;
} {
  let out!: ReadableStreamDefaultController<Uint8Array>;
  let sink!: WritableStreamDefaultController;
  let failure: { reason: unknown } | undefined;
  // True while the reader has not asked for more: nothing passes before the first read.
  let backpressure = true;
  let relieve: (() => void) | undefined;

  const setBackpressure = (on: boolean): void => {
    backpressure = on;
    if (on) return;
    const wake = relieve;
    relieve = undefined;
    wake?.();
  };
  const fail = (reason: unknown): void => {
    if (failure) return;
    failure = { reason };
    hooks.fail(reason);
  };
  /** The writer aborted, or a chunk or a hook failed: the reader sees the reason at once. */
  const errorReadable = (reason: unknown): void => {
    fail(reason);
    out.error(reason);
    setBackpressure(false);
  };
  const pass = (chunk: unknown): void => {
    // A cancel or an abort while this write waited for a read.
    if (failure) throw failure.reason;
    let copy: Uint8Array;
    try {
      copy = ownCopy(chunk);
      hooks.chunk(copy);
    } catch (err) {
      // The write's rejection errors the writable side.
      errorReadable(err);
      throw err;
    }
    out.enqueue(copy);
    if ((out.desiredSize ?? 0) <= 0) backpressure = true;
  };

  const readable = new ReadableStream<Uint8Array>(
    {
      start: (c) => void (out = c),
      pull: () => setBackpressure(false),
      cancel: (reason) => {
        fail(reason);
        // The writer's next write fails with the reason, which makes pipeTo cancel its source.
        sink.error(reason);
        setBackpressure(false);
      },
    },
    { highWaterMark: 0 },
  );
  const writable = new WritableStream<Uint8Array>(
    {
      start: (c) => {
        sink = c;
        // An abort waits for the pending write: fail it now rather than when a read comes.
        // The readable side errors in `abort`, as a TransformStream's does. (No `signal` in
        // older engines: the write then waits for a read, as in a TransformStream.)
        const signal = (c as { signal?: AbortSignal }).signal;
        signal?.addEventListener(
          'abort',
          () => {
            fail(signal.reason);
            setBackpressure(false);
          },
          { once: true },
        );
      },
      write: (chunk) =>
        backpressure ? new Promise<void>((resolve) => (relieve = resolve)).then(() => pass(chunk)) : pass(chunk),
      close: () => {
        if (failure) throw failure.reason;
        try {
          hooks.close();
        } catch (err) {
          errorReadable(err);
          throw err;
        }
        out.close();
      },
      abort: (reason) => errorReadable(reason),
    },
    { highWaterMark: 1 },
  );
  return { readable, writable };
}

/**
 * A `TransformStream` whose two sides are a `passThrough` pair, behind accessors on the
 * prototype as TransformStream's own are. The base TransformStream's sides stay unused.
 */
export class PassThroughTransform extends TransformStream<Uint8Array, Uint8Array> {
  readonly #sides: { readable: ReadableStream<Uint8Array>; writable: WritableStream<Uint8Array> };

  constructor(hooks: PassThroughHooks) {
    super();
    this.#sides = passThrough(hooks);
  }

  override get readable(): ReadableStream<Uint8Array> {
    return this.#sides.readable;
  }

  override get writable(): WritableStream<Uint8Array> {
    return this.#sides.writable;
  }
}

/**
 * A chunk checked and copied into an ArrayBuffer of its own, so that the bytes hashed are the
 * bytes passed on: a writer may reuse its buffer once write() resolves (a BYOB reader's pool, a
 * ring buffer), and the reader would then hold bytes that were never hashed. The copy is made
 * from the engine's own view of the chunk (`aChunk`), never by the chunk's own `slice` (a
 * subclass's, or Node's Buffer's, which is a view and no copy).
 *
 * Rejected: transferring the writer's buffer costs nothing but empties the writer's array, and
 * every other view of that memory, behind its back. Copies packed into shared slabs: in Node 20
 * they cost less CPU time than one allocation per chunk (0.58x one-shot against 0.49x with
 * hashing, 256 KiB slabs, 64 KiB chunks, load 10 on 2 cores), in Chromium 156 they did not
 * (forwarding copies: 275 MB/s with 256 KiB slabs, 157 with 1 MiB, 257 with slice(), load 15);
 * and a reader that transfers one chunk's buffer to a worker would detach its neighbours.
 */
function ownCopy(chunk: unknown): Uint8Array<ArrayBuffer> {
  return aChunk(chunk).slice();
}
