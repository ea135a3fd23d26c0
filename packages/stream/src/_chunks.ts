import { describe } from './_describe.js';

/** Stream chunks must be Uint8Arrays (as `fetch` bodies and `Blob.stream()` give); anything else is a TypeError. */
export function assertChunk(chunk: unknown): asserts chunk is Uint8Array {
  // The tag, not instanceof: chunks may come from another realm (an iframe, a worker's structured clone).
  if (Object.prototype.toString.call(chunk) !== '[object Uint8Array]') {
    throw new TypeError(`stream chunks must be Uint8Arrays, got ${describe(chunk)}`);
  }
}

/**
 * A chunk checked and copied: the bytes hashed are the bytes passed on. A writer may reuse its
 * buffer once write() resolves (a BYOB reader's pool, a ring buffer), and the reader would then
 * hold bytes that were never hashed. Copying costs one memcpy per chunk (docs/BENCHMARKS.md,
 * streams); transferring the buffer instead would detach memory the writer still owns, and a
 * view's whole buffer (a Node Buffer pool slab) with it.
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
