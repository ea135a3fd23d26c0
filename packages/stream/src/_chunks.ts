import { describe } from './_describe.js';

/** Stream chunks must be Uint8Arrays (as `fetch` bodies and `Blob.stream()` give); anything else is a TypeError. */
export function assertChunk(chunk: unknown): asserts chunk is Uint8Array {
  // The tag, not instanceof: chunks may come from another realm (an iframe, a worker's structured clone).
  if (Object.prototype.toString.call(chunk) !== '[object Uint8Array]') {
    throw new TypeError(`stream chunks must be Uint8Arrays, got ${describe(chunk)}`);
  }
}

/**
 * A chunk checked and copied into an ArrayBuffer of its own, so that the bytes hashed are the
 * bytes passed on: a writer may reuse its buffer once write() resolves (a BYOB reader's pool, a
 * ring buffer), and the reader would then hold bytes that were never hashed.
 *
 * Rejected: transferring the writer's buffer costs nothing but empties the writer's array, and
 * every other view of that memory, behind its back. Copies packed into shared slabs: in Node 20
 * they cost less CPU time than one allocation per chunk (0.58x one-shot against 0.49x with
 * hashing, 256 KiB slabs, 64 KiB chunks, load 10 on 2 cores), in Chromium 156 they did not
 * (forwarding copies: 275 MB/s with 256 KiB slabs, 157 with 1 MiB, 257 with slice(), load 15);
 * and a reader that transfers one chunk's buffer to a worker would detach its neighbours.
 */
export function ownCopy(chunk: unknown): Uint8Array<ArrayBuffer> {
  assertChunk(chunk);
  return chunk.slice();
}

/** A promise whose rejection is never reported as unhandled: stream owners may not await it. */
export function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  promise.catch(() => {});
  return { promise, resolve, reject };
}
