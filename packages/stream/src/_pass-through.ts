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
 * A `TransformStream` that passes copies of Uint8Array chunks through, seeing each one, and
 * learns of every abort and cancel: Chromium 156, Firefox 153 and WebKitGTK 2.50 never call a
 * transformer's `cancel`, neither for a cancel nor for an abort, so a transformer alone cannot
 * see them.
 *
 * `readable` is the TransformStream's own, so `TransformStream.prototype`'s getter gives it too
 * (the web-platform-tests' brand check). `writable` is a stream of ours in front of the base
 * identity transform: it copies and shows each chunk to the hooks, then writes the copy to the
 * base's writable side, whose only writer it holds, and waits, as that write does, until a read
 * takes the chunk. The base's writable side is therefore locked: nothing written around the
 * hooks can reach the reader. A cancel of the readable side errors the base's writable side
 * (Streams spec, TransformStreamDefaultSourceCancelAlgorithm), which that writer sees.
 *
 * Writes, backpressure and errors follow an identity TransformStream with the default
 * strategies (its writable side holds one chunk, its readable side none). One difference: an
 * abort fails a write that waits for a read at once (through the controller's `signal`), so the
 * write rejects and the abort settles even if no read ever comes; a platform TransformStream
 * leaves both pending until a read.
 *
 * Cost: the second writable side. Against the hand-made readable/writable pair these classes
 * had before (whose readable side failed the brand check), a hashing pass-through of 64 MiB in
 * 64 KiB chunks in Node 20 ran at 0.98x, 0.89x and 0.87x the pair's speed (3 runs, 9
 * interleaved rounds each, load 0.3 on 2 cores); bench:stream in Chromium 156 and Firefox 153
 * showed no loss (docs/BENCHMARKS.md, streams). The copy still costs the most.
 */
export class PassThroughTransform extends TransformStream<Uint8Array, Uint8Array> {
  readonly #writable: WritableStream<Uint8Array>;

  constructor(hooks: PassThroughHooks) {
    let base!: TransformStreamDefaultController<Uint8Array>;
    super({ start: (controller) => void (base = controller) });
    this.#writable = hookedWritable(super.writable.getWriter(), base, hooks);
  }

  override get writable(): WritableStream<Uint8Array> {
    return this.#writable;
  }
}

// The constructor as this module found it, as a TransformStream uses the original one: code that
// replaces the global later (a polyfill, a test) does not change what these streams are made of.
const OwnWritableStream: typeof WritableStream = globalThis.WritableStream;

/** The writable side: `inner` writes to the base transform's writable side, `base` errors both of its sides. */
function hookedWritable(
  inner: WritableStreamDefaultWriter<Uint8Array>,
  base: TransformStreamDefaultController<Uint8Array>,
  hooks: PassThroughHooks,
): WritableStream<Uint8Array> {
  let failure: { reason: unknown } | undefined;
  let sink!: WritableStreamDefaultController;
  /** Whether a chunk was written: a write may then wait for a read. */
  let written = false;

  const fail = (reason: unknown): void => {
    if (failure) return;
    failure = { reason };
    hooks.fail(reason);
  };
  /** A chunk or a hook failed: both sides error with the reason, the reader's at once. */
  const error = (reason: unknown): never => {
    fail(reason);
    base.error(reason);
    throw reason;
  };
  // The base's writable side errors when its readable side is cancelled (and when `base`
  // errors it): the writer of ours then fails with the reason, which makes pipeTo cancel its source.
  inner.closed.catch((reason: unknown) => {
    fail(reason);
    sink.error(reason);
  });

  return new OwnWritableStream<Uint8Array>(
    {
      start: (controller) => {
        sink = controller;
        // An abort reaches the base's writable side at once, as an abort of a TransformStream's
        // own would: a chunk whose write waits for a read is then never passed on. Once a chunk
        // was written, the base also errors at once, which fails a write that waits for a read
        // now rather than when a read comes, so that the abort settles even if none does. (Not
        // before: a cancel that follows an abort during start must still succeed, as with a
        // TransformStream. No `signal` in older engines: the write then waits for a read.)
        const signal = (controller as { signal?: AbortSignal }).signal;
        signal?.addEventListener(
          'abort',
          () => {
            fail(signal.reason);
            inner.abort(signal.reason).catch(() => {});
            if (written) base.error(signal.reason);
          },
          { once: true },
        );
      },
      write: (chunk) => {
        let copy: Uint8Array;
        try {
          copy = ownCopy(chunk);
          hooks.chunk(copy);
        } catch (err) {
          return error(err);
        }
        written = true;
        return inner.write(copy);
      },
      close: () => {
        try {
          hooks.close();
        } catch (err) {
          error(err);
        }
        return inner.close();
      },
      abort: (reason) => {
        fail(reason);
        base.error(reason);
      },
    },
    { highWaterMark: 1 },
  );
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
