import { expectedDigest } from '@blake3-web/stream/_internal';
import { parseDictionary } from 'structured-headers';
import { serviceWorkerLocation } from './service-worker-location.js';

/**
 * Where the expected BLAKE3 of a response comes from. A resolver returns the digest as hex or
 * bytes, or undefined when it has no opinion (the response then passes through untouched). It
 * throws (TypeError/RangeError) when the source of the digest is there but unusable: the
 * response then fails instead of passing unchecked.
 */
export type ExpectedHashResolver = (request: Request, response?: Response) => string | Uint8Array | undefined;

const HEX64 = /^[0-9a-fA-F]{64}$/;

/** Content-addressed URLs: the last path segment is the 64-hex-digit BLAKE3 (`/blobs/<hex>`). */
export const hashFromUrlPath: ExpectedHashResolver = (request) => {
  const last = new URL(request.url).pathname.split('/').pop() ?? '';
  return HEX64.test(last) ? last.toLowerCase() : undefined;
};

/**
 * A response header holding the hex digest, e.g. `X-Blake3: <hex>`. A header that is present but
 * not a hex digest of at least 16 bytes is a RangeError (the response fails); an absent one gives
 * no opinion.
 */
export function hashFromHeader(name: string): ExpectedHashResolver {
  if (typeof name !== 'string' || name === '') throw new TypeError('name must be a header name');
  return (_request, response) => {
    const value = response?.headers.get(name);
    if (value === null || value === undefined) return undefined;
    const hex = value.trim();
    expectedDigest(hex, `the ${name} header`);
    return hex.toLowerCase();
  };
}

/**
 * The `blake3` member of an RFC 9530 digest field (`Repr-Digest: blake3=:<base64>:`). Use
 * `Repr-Digest` (default): it covers the decoded representation that `fetch` hands over, while
 * `Content-Digest` covers the bytes before content-coding and only matches identity encoding.
 * A field that is present but malformed, or whose `blake3` member is unusable, is a RangeError
 * (the response fails); a field without a `blake3` member gives no opinion.
 */
export function hashFromDigestHeader(header: 'repr-digest' | 'content-digest' = 'repr-digest'): ExpectedHashResolver {
  if (header !== 'repr-digest' && header !== 'content-digest')
    throw new RangeError(`header must be 'repr-digest' or 'content-digest', got ${String(header)}`);
  return (_request, response) => {
    const field = response?.headers.get(header);
    if (field === null || field === undefined) return undefined;
    const digest = parseDigestField(field, header).get('blake3');
    return digest === undefined ? undefined : expectedDigest(digest, `the blake3 member of ${header}`);
  };
}

/**
 * The members of an RFC 9530 digest field, a structured-field dictionary (RFC 8941, section
 * 3.2). A field that does not parse is a RangeError (RFC 8941 would ignore it; a verifier must
 * not). Members whose value is not a byte sequence are dropped unless they are `blake3`, which
 * is then a RangeError: an algorithm this resolver does not know says nothing about the body,
 * a `blake3` member it cannot use must not be mistaken for its absence.
 */
export function parseDigestField(field: string, name = 'the digest field'): Map<string, Uint8Array> {
  if (typeof field !== 'string')
    throw new TypeError(`${name} must be a string, got ${field === null ? 'null' : typeof field}`);
  let dictionary: ReturnType<typeof parseDictionary>;
  try {
    dictionary = parseDictionary(field);
  } catch (err) {
    throw new RangeError(`${name} is not a structured-field dictionary (RFC 8941): ${(err as Error).message}`);
  }
  const out = new Map<string, Uint8Array>();
  for (const [key, [value]] of dictionary) {
    if (value instanceof ArrayBuffer) out.set(key, new Uint8Array(value));
    else if (key === 'blake3')
      throw new RangeError(`${name} has a blake3 member that is not a byte sequence (:base64:)`);
  }
  return out;
}

const HEX = /^(?:[0-9a-fA-F]{2})+$/;

/**
 * A manifest of URL -> hex digest. Relative URLs resolve against `base`, by default the service
 * worker's own location (as Workbox resolves precache entries), never a request's. Checked when
 * it is created: a malformed or too short digest is a RangeError then, not a failed fetch later.
 */
export function hashFromManifest(
  manifest: Readonly<Record<string, string>>,
  base?: string | URL,
): ExpectedHashResolver {
  if (typeof manifest !== 'object' || manifest === null)
    throw new TypeError('manifest must be an object of URL -> hex digest');
  const root = base === undefined ? serviceWorkerLocation('base') : new URL(base).href;
  const byUrl = new Map<string, string>();
  for (const [url, hex] of Object.entries(manifest)) {
    if (typeof hex !== 'string' || !HEX.test(hex))
      throw new RangeError(
        `manifest[${JSON.stringify(url)}] must be an even number of hex digits, got ${JSON.stringify(hex)}`,
      );
    expectedDigest(hex, `manifest[${JSON.stringify(url)}]`);
    byUrl.set(withoutHash(new URL(url, root)), hex.toLowerCase());
  }
  return (request) => byUrl.get(withoutHash(new URL(request.url)));
}

/** A URL without its fragment, which never reaches the server. */
export function withoutHash(url: URL): string {
  url.hash = '';
  return url.href;
}

/** The first answer of several resolvers. */
export function firstOf(...resolvers: ExpectedHashResolver[]): ExpectedHashResolver {
  resolvers.forEach((r, i) => {
    if (typeof r !== 'function')
      throw new TypeError(`resolvers[${i}] must be a function, got ${r === null ? 'null' : typeof r}`);
  });
  return (request, response) => {
    for (const r of resolvers) {
      const hash = r(request, response);
      if (hash !== undefined) return hash;
    }
    return undefined;
  };
}
