import { IntegrityError } from '@blake3-web/stream';
import { ByteReader } from './byte-reader.js';
import type { Fetch } from './fetch-option.js';

/**
 * `request` as the server is asked for it: content bytes first..last, or with no Range header
 * when `first` is omitted. `Icy-MetaData` is dropped: WebKitGTK's media player puts it on every
 * request, it asks a streaming server to mix metadata into the body (which then is not the
 * content), and being no CORS-safelisted header it makes a cross-origin fetch send a preflight
 * that a CDN allowing only `Range` refuses, so the fetch fails before any byte arrives.
 */
export function withRange(request: Request, first?: number, last?: number): Request {
  const headers = new Headers(request.headers);
  headers.delete('icy-metadata');
  if (first === undefined) headers.delete('range');
  else headers.set('range', `bytes=${first}-${last}`);
  return new Request(request.url, { headers, credentials: request.credentials, signal: request.signal });
}

/** The body of a range response as a reader positioned at content byte `start`. */
export async function contentFrom(response: Response, start: number, hash: Uint8Array): Promise<ByteReader> {
  const reader = new ByteReader(response.body);
  if (response.status === 206) {
    const m = /^bytes (\d+)-\d+\/(?:\d+|\*)$/.exec(response.headers.get('content-range') ?? '');
    if (!m || Number(m[1]) !== start) {
      await reader.cancel();
      throw IntegrityError.corrupt(
        hash,
        `the server answered the range from byte ${start} with Content-Range ${JSON.stringify(response.headers.get('content-range'))}`,
      );
    }
  } else await reader.skip(start); // a 200: the server ignored Range and sent everything
  return reader;
}

/**
 * Content bytes [start, end) from the server, asked for at most `pieceBytes` at a time: each
 * piece is requested only once the one before it has been read to its end, so a reader that
 * stops (a player that seeks away) leaves the rest unasked. Unverified: the caller checks.
 */
export class UpstreamPieces {
  readonly #request: Request;
  readonly #hash: Uint8Array;
  readonly #end: number;
  readonly #pieceBytes: number;
  readonly #doFetch: Fetch;
  /** The content byte the next piece starts at. */
  #next: number;
  #body: ByteReader | undefined;
  /** Bytes of the current piece not read yet. */
  #left = 0;
  #cancelled = false;

  constructor(request: Request, hash: Uint8Array, start: number, end: number, pieceBytes: number, doFetch: Fetch) {
    this.#request = request;
    this.#hash = hash;
    this.#next = start;
    this.#end = end;
    this.#pieceBytes = pieceBytes;
    this.#doFetch = doFetch;
  }

  /** Asks for the first piece: the server's response, which the caller passes on unless it is ok. */
  async open(): Promise<Response> {
    const response = await this.#ask();
    if (response.ok) await this.#take(response);
    return response;
  }

  /** `n` bytes, or fewer if a piece ends short or the content does. */
  async read(n: number): Promise<Uint8Array> {
    const out = new Uint8Array(n);
    let filled = 0;
    while (filled < n) {
      if (this.#left === 0) {
        if (this.#next >= this.#end || this.#cancelled) break;
        const response = await this.#ask();
        if (!response.ok) {
          await response.body?.cancel().catch(() => {});
          throw new Error(
            `the server answered the range from content byte ${this.#next} with ${response.status} ${response.statusText}`.trimEnd(),
          );
        }
        await this.#take(response);
      }
      const got = await this.#body!.read(Math.min(n - filled, this.#left));
      out.set(got, filled);
      filled += got.length;
      this.#left -= got.length;
      if (got.length === 0) break; // the piece ended short: the caller sees fewer bytes than it asked for
    }
    return out.subarray(0, filled);
  }

  async cancel(): Promise<void> {
    this.#cancelled = true;
    await this.#body?.cancel();
  }

  #ask(): Promise<Response> {
    const last = Math.min(this.#end, this.#next + this.#pieceBytes) - 1;
    return this.#doFetch(withRange(this.#request, this.#next, last));
  }

  async #take(response: Response): Promise<void> {
    await this.#body?.cancel();
    this.#body = await contentFrom(response, this.#next, this.#hash);
    // A server that ignored Range sends everything from the start: read on in it rather than ask again.
    const size = response.status === 206 ? Math.min(this.#pieceBytes, this.#end - this.#next) : this.#end - this.#next;
    this.#left = size;
    this.#next += size;
  }
}
