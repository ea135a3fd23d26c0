import { expectedDigest } from '@blake3-web/stream/_internal';
import { parseDictionary } from 'structured-headers';
import { aFunction, anObject, aRequest, aString, aUrl, oneOf, shown } from './_assert.js';
import { baseUrl } from './service-worker-location.js';

/**
 * Where the expected BLAKE3 of a response comes from. A resolver returns the digest as hex or
 * bytes, or undefined when it has no opinion (the response then passes through untouched). It
 * throws (TypeError/RangeError) when the source of the digest is there but unusable: the
 * response then fails instead of passing unchecked.
 */
export type ExpectedHashResolver = (request: Request, response?: Response) => string | Uint8Array | undefined;

const HEX64 = /^[0-9a-fA-F]{64}$/;
/** A field name: an HTTP token (RFC 9110, section 5.1). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Content-addressed URLs: the last path segment is the 64-hex-digit BLAKE3 (`/blobs/<hex>`). */
export const hashFromUrlPath: ExpectedHashResolver = (request) => {
  const last = new URL(aRequest(request, 'request').url).pathname.split('/').pop() ?? '';
  return HEX64.test(last) ? last.toLowerCase() : undefined;
};

/**
 * A response header holding the hex digest, e.g. `X-Blake3: <hex>`. A header that is present but
 * not a hex digest of at least 16 bytes is a RangeError (the response fails); an absent one gives
 * no opinion.
 */
export function hashFromHeader(name: string): ExpectedHashResolver {
  if (!HEADER_NAME.test(aString(name, 'name')))
    throw new RangeError(`name must be a header name (an HTTP token), got ${shown(name)}`);
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
  oneOf(header, 'header', ['repr-digest', 'content-digest']);
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
  aString(field, name);
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
  anObject(manifest, 'manifest');
  const root = baseUrl(base);
  const byUrl = new Map<string, string>();
  for (const [url, hex] of Object.entries(manifest)) {
    const name = `manifest[${JSON.stringify(url)}]`;
    if (!HEX.test(aString(hex, name)))
      throw new RangeError(`${name} must be an even number of hex digits, got ${shown(hex as string)}`);
    expectedDigest(hex, name);
    byUrl.set(withoutHash(aUrl(url, `the manifest key ${JSON.stringify(url)}`, root)), (hex as string).toLowerCase());
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
  resolvers.forEach((r, i) => aFunction(r, `resolvers[${i}]`));
  return (request, response) => {
    for (const r of resolvers) {
      const hash = r(request, response);
      if (hash !== undefined) return hash;
    }
    return undefined;
  };
}
