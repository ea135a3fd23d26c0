/**
 * Where the expected BLAKE3 of a response comes from. A resolver returns the digest as hex or
 * bytes, or undefined when it has no opinion (the response then passes through untouched).
 */
export type ExpectedHashResolver = (request: Request, response?: Response) => string | Uint8Array | undefined;

const HEX64 = /^[0-9a-fA-F]{64}$/;

/** Content-addressed URLs: the last path segment is the 64-hex-digit BLAKE3 (`/blobs/<hex>`). */
export const hashFromUrlPath: ExpectedHashResolver = (request) => {
  const last = new URL(request.url).pathname.split('/').pop() ?? '';
  return HEX64.test(last) ? last.toLowerCase() : undefined;
};

/** A response header holding the hex digest, e.g. `X-Blake3: <hex>`. */
export function hashFromHeader(name: string): ExpectedHashResolver {
  if (typeof name !== 'string' || name === '') throw new TypeError('name must be a header name');
  return (_request, response) => {
    const value = response?.headers.get(name)?.trim();
    return value !== undefined && /^[0-9a-fA-F]+$/.test(value) && value.length % 2 === 0 ? value.toLowerCase() : undefined;
  };
}

/**
 * The `blake3` member of an RFC 9530 digest field (`Repr-Digest: blake3=:<base64>:`). Use
 * `Repr-Digest` (default): it covers the decoded representation that `fetch` hands over, while
 * `Content-Digest` covers the bytes before content-coding and only matches identity encoding.
 */
export function hashFromDigestHeader(header: 'repr-digest' | 'content-digest' = 'repr-digest'): ExpectedHashResolver {
  return (_request, response) => {
    const field = response?.headers.get(header);
    return field ? parseDigestField(field).get('blake3') : undefined;
  };
}

/** The byte-sequence members (`key=:base64:`) of a structured-field dictionary (RFC 8941). */
export function parseDigestField(field: string): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  for (const member of field.split(',')) {
    const m = /^\s*([a-z*][a-z0-9_\-.*]*)\s*=\s*:([A-Za-z0-9+/=]*):\s*(;.*)?$/.exec(member);
    if (!m) continue;
    try {
      out.set(m[1], Uint8Array.from(atob(m[2]), (c) => c.charCodeAt(0)));
    } catch {
      // Invalid base64: that member says nothing.
    }
  }
  return out;
}

/** A manifest of URL -> hex digest; relative URLs resolve against `base` (default: the request URL's origin). */
export function hashFromManifest(manifest: Readonly<Record<string, string>>, base?: string): ExpectedHashResolver {
  if (typeof manifest !== 'object' || manifest === null) throw new TypeError('manifest must be an object of URL -> hex digest');
  let resolved: Map<string, string> | undefined;
  return (request) => {
    const origin = base ?? new URL(request.url).origin;
    resolved ??= new Map(Object.entries(manifest).map(([url, hex]) => [new URL(url, origin).href, hex.toLowerCase()]));
    const url = new URL(request.url);
    url.hash = '';
    return resolved.get(url.href);
  };
}

/** The first answer of several resolvers. */
export function firstOf(...resolvers: ExpectedHashResolver[]): ExpectedHashResolver {
  return (request, response) => {
    for (const r of resolvers) {
      const hash = r(request, response);
      if (hash !== undefined) return hash;
    }
    return undefined;
  };
}
