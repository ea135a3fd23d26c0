import type { ExpectedHashResolver } from './resolvers.js';

/**
 * A Workbox precache manifest entry that also carries the BLAKE3 of its content. Workbox reads
 * `url`, `revision` and `integrity` and ignores `blake3`, so the same array goes to
 * `precacheAndRoute` and to {@link hashFromPrecacheManifest}.
 */
export type Blake3PrecacheEntry = { url: string; blake3?: string; revision?: string | null; integrity?: string };

const HEX = /^(?:[0-9a-fA-F]{2})+$/;

/**
 * The `blake3` members of a precache manifest, by URL. Relative URLs resolve as Workbox resolves
 * them: against the service worker's location (`base`, default `self.location.href`). Entries
 * without `blake3` (and plain string entries) get no opinion, so they are cached unchecked.
 * A malformed digest is an error here, at startup, not a failed install later.
 *
 * @example
 * ```ts
 * const manifest = [{ url: '/app.js', revision: hex, blake3: hex }];
 * precacheAndRoute(manifest);
 * addPlugins([new Blake3IntegrityPlugin({ expectedHash: hashFromPrecacheManifest(manifest) })]);
 * ```
 */
export function hashFromPrecacheManifest(entries: ReadonlyArray<string | Blake3PrecacheEntry>, base?: string): ExpectedHashResolver {
  if (!Array.isArray(entries)) throw new TypeError(`entries must be an array of precache entries, got ${entries === null ? 'null' : typeof entries}`);
  const root = base ?? (globalThis as { location?: { href: string } }).location?.href;
  if (root === undefined) throw new TypeError('base must be given where there is no self.location (outside a service worker)');
  const byUrl = new Map<string, string>();
  entries.forEach((entry, i) => {
    if (typeof entry === 'string') return;
    if (typeof entry !== 'object' || entry === null || typeof entry.url !== 'string') {
      throw new TypeError(`entries[${i}] must be a URL string or an object with a url, got ${entry === null ? 'null' : typeof entry}`);
    }
    if (entry.blake3 === undefined) return;
    if (typeof entry.blake3 !== 'string' || !HEX.test(entry.blake3)) {
      throw new RangeError(`entries[${i}].blake3 must be an even number of hex digits, got ${JSON.stringify(entry.blake3)}`);
    }
    byUrl.set(withoutHash(new URL(entry.url, root)), entry.blake3.toLowerCase());
  });
  return (request) => byUrl.get(withoutHash(new URL(request.url)));
}

function withoutHash(url: URL): string {
  url.hash = '';
  return url.href;
}
