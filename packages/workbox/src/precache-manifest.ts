import { expectedDigest } from '@blake3-web/stream/_internal';
import { withoutHash, type ExpectedHashResolver } from './resolvers.js';
import { aString, aUrl, describe, shown } from './_assert.js';
import { baseUrl } from './service-worker-location.js';

/**
 * A Workbox precache manifest entry that also carries the BLAKE3 of its content. Workbox reads
 * `url`, `revision` and `integrity` and ignores `blake3`, so the same array goes to
 * `precacheAndRoute` and to {@link hashFromPrecacheManifest}.
 */
export type Blake3PrecacheEntry = { url: string; blake3?: string; revision?: string | null; integrity?: string };

const HEX = /^(?:[0-9a-fA-F]{2})+$/;

/**
 * The `blake3` members of a precache manifest, by URL and by Workbox cache key. Relative URLs
 * resolve as Workbox resolves them: against the service worker's location (`base`, default
 * `self.location.href`). Entries without `blake3` (and plain string entries) get no opinion, so
 * they are cached unchecked. A malformed or too short digest is an error here, at startup, not a
 * failed install later.
 *
 * The cache keys (`<url>?__WB_REVISION__=<revision>` for an entry with a revision) let
 * {@link Blake3IntegrityPlugin} check every URL that Workbox maps to an entry (`/` for
 * `/index.html`, ignored search parameters, clean URLs, `urlManipulation`) against that entry's
 * digest: the plugin looks up the cache key the precache route chose as well as the request.
 *
 * @example
 * ```ts
 * const manifest = [{ url: '/app.js', revision: hex, blake3: hex }];
 * precacheAndRoute(manifest);
 * addPlugins([new Blake3IntegrityPlugin({ expectedHash: hashFromPrecacheManifest(manifest) })]);
 * ```
 */
export function hashFromPrecacheManifest(
  entries: ReadonlyArray<string | Blake3PrecacheEntry>,
  base?: string | URL,
): ExpectedHashResolver {
  if (!Array.isArray(entries))
    throw new TypeError(`entries must be an array of precache entries, got ${describe(entries)}`);
  const root = baseUrl(base);
  const byUrl = new Map<string, string>();
  const add = (url: URL, hex: string, i: number) => {
    const key = withoutHash(url);
    const known = byUrl.get(key);
    if (known !== undefined && known !== hex)
      throw new RangeError(`entries[${i}] gives ${key} another blake3 than an earlier entry`);
    byUrl.set(key, hex);
  };
  entries.forEach((entry, i) => {
    if (typeof entry === 'string') return;
    if (typeof entry !== 'object' || entry === null)
      throw new TypeError(`entries[${i}] must be a URL string or an object with a url, got ${describe(entry)}`);
    const url = aUrl(aString(entry.url, `entries[${i}].url`), `entries[${i}].url`, root);
    if (entry.blake3 === undefined) return;
    if (!HEX.test(aString(entry.blake3, `entries[${i}].blake3`)))
      throw new RangeError(`entries[${i}].blake3 must be an even number of hex digits, got ${shown(entry.blake3)}`);
    expectedDigest(entry.blake3, `entries[${i}].blake3`);
    const hex = entry.blake3.toLowerCase();
    add(url, hex, i);
    if (entry.revision) {
      // Workbox's cache key for an entry with a revision (workbox-precaching, createCacheKey).
      const cacheKey = new URL(url);
      cacheKey.searchParams.set(REVISION_PARAM, String(entry.revision));
      add(cacheKey, hex, i);
    }
  });
  return (request) => byUrl.get(withoutHash(new URL(request.url)));
}

const REVISION_PARAM = '__WB_REVISION__';
