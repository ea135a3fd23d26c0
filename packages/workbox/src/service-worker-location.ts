import { aUrl } from './_assert.js';

/**
 * The service worker's own URL (`self.location.href`), which relative manifest URLs resolve
 * against, as Workbox resolves its precache entries. Outside a service worker there is none, and
 * `base` must be given: guessing from a request would let the first one seen decide.
 */
export function serviceWorkerLocation(name: string): string {
  const href = (globalThis as { location?: { href?: unknown } }).location?.href;
  if (typeof href !== 'string')
    throw new TypeError(`${name} must be given where there is no self.location (outside a service worker)`);
  return href;
}

/** The `base` argument of a manifest resolver, as an absolute URL: the one given, else the service worker's. */
export function baseUrl(base: unknown): string {
  return base === undefined ? serviceWorkerLocation('base') : aUrl(base, 'base').href;
}
