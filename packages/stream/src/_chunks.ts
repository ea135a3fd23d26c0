import { describe } from './_describe.js';

/** Stream chunks must be Uint8Arrays (as `fetch` bodies and `Blob.stream()` give); anything else is a TypeError. */
export function assertChunk(chunk: unknown): asserts chunk is Uint8Array {
  // The tag, not instanceof: chunks may come from another realm (an iframe, a worker's structured clone).
  if (Object.prototype.toString.call(chunk) !== '[object Uint8Array]') {
    throw new TypeError(`stream chunks must be Uint8Arrays, got ${describe(chunk)}`);
  }
}

/** A promise whose rejection is never reported as unhandled: stream owners may not await it. */
export function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  promise.catch(() => {});
  return { promise, resolve, reject };
}
