/** A `fetch` to use instead of the global one: a service worker's own, or a test's. */
export type Fetch = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;

/** `fetch`, or else the global one, looked up at each call (so that a later replacement applies). */
export function fetchOrGlobal(fetch: Fetch | undefined): Fetch {
  return fetch ?? ((input, init) => globalThis.fetch(input, init));
}
