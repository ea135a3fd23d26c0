/**
 * Whether a 206 holds the whole content, so that a digest of the whole content can check it:
 * the request asked for a range (a 206 nobody asked for is never trusted) and the answer's
 * `Content-Range` is `bytes 0-<n-1>/<n>` (RFC 9110, section 14.4), as servers answer the
 * `Range: bytes=0-` that media elements send. Any other 206 is part of the content, which a
 * whole-content digest cannot check (Bao ranges can: see `baoRangeHandler`).
 */
export function isWholeContent206(request: Request, response: Response): boolean {
  if (!request.headers.has('range')) return false;
  const m = /^\s*bytes\s+0-(\d+)\/(\d+)\s*$/i.exec(response.headers.get('content-range') ?? '');
  return m !== null && Number(m[1]) + 1 === Number(m[2]);
}
