import { aFunction } from './_assert.js';

/** A `fetch` to use instead of the global one: a service worker's own, or a test's. */
export type Fetch = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;

/** `opts.fetch`, or else the global one, looked up at each call (so that a later replacement applies). */
export function fetchOrGlobal(fetch: unknown): Fetch {
  return fetch === undefined ? (input, init) => globalThis.fetch(input, init) : aFunction(fetch as Fetch, 'opts.fetch');
}
