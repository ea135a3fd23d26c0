import { blake3, type Blake3Opts } from '@blake3-web/core';
import { describe } from './_assert.js';
import { concatBytes } from './bao/_concat.js';
import { assertDigest, expectedDigest } from './_digest.js';
import { VerifyStream } from './verify-stream.js';

/**
 * A `Response` with the same status and headers whose body is checked against `expected` as it
 * streams: reading it fails when the content does not match. Every way of reading it, `body`
 * with a reader or `pipeTo`, `arrayBuffer()`, `bytes()`, `text()`, `json()`, `blob()` and
 * `formData()`, rejects with the `IntegrityError` itself, and so does a `clone()`.
 *
 * @example
 * const checked = verifyResponse(await fetch(url), expectedHex);
 * const text = await checked.text(); // rejects with an IntegrityError unless the bytes match
 */
export function verifyResponse(
  response: Response,
  expected: Uint8Array | string,
  opts?: Omit<Blake3Opts, 'dkLen'>,
): Response {
  if (!(response instanceof Response)) throw new TypeError(`response must be a Response, got ${describe(response)}`);
  if (response.body === null) {
    // No body (204, HEAD) is empty content, which must match too; such a Response cannot carry a
    // stream that errors later, so the check happens now.
    const want = expectedDigest(expected);
    assertDigest(blake3(new Uint8Array(0), { ...opts, dkLen: want.length }), want, opts?.key !== undefined);
    return response;
  }
  const body = response.body.pipeThrough(new VerifyStream(expected, opts));
  return new CheckedResponse(body, response);
}

/**
 * A Response whose body methods read the body themselves. The platform's own methods replace
 * the error of a stream that fails with one of their own (Chromium 156 and WebKitGTK 2.50 a
 * `TypeError`, Firefox 153 an `AbortError`), which would hide the `IntegrityError`; once the
 * bytes are read and checked here, a plain Response of them parses them as the platform does.
 */
class CheckedResponse extends Response {
  constructor(body: ReadableStream<Uint8Array>, init: ResponseInit) {
    super(body, { status: init.status, statusText: init.statusText, headers: init.headers });
  }

  override async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.#readBody();
    return bytes === undefined ? super.arrayBuffer() : bytes.buffer;
  }

  override async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    const bytes = await this.#readBody();
    return bytes ?? new Uint8Array(await super.arrayBuffer());
  }

  override async blob(): Promise<Blob> {
    const read = await this.#asPlain();
    return read === undefined ? super.blob() : read.blob();
  }

  override async formData(): Promise<FormData> {
    const read = await this.#asPlain();
    return read === undefined ? super.formData() : read.formData();
  }

  override async json(): Promise<unknown> {
    const read = await this.#asPlain();
    return read === undefined ? super.json() : read.json();
  }

  override async text(): Promise<string> {
    const read = await this.#asPlain();
    return read === undefined ? super.text() : read.text();
  }

  override clone(): Response {
    const copy = super.clone();
    return new CheckedResponse(copy.body!, copy);
  }

  /** The checked bytes in a plain Response with these headers, whose methods then parse them. */
  async #asPlain(): Promise<Response | undefined> {
    const bytes = await this.#readBody();
    return bytes && new Response(bytes, { headers: this.headers });
  }

  /**
   * The whole body, read to its end through a reader, so that its error arrives as it is.
   * Undefined when the body is already used or locked: the platform's own method then rejects
   * as it does for any Response.
   */
  async #readBody(): Promise<Uint8Array<ArrayBuffer> | undefined> {
    const body = this.body;
    if (body === null || body.locked || this.bodyUsed) return undefined;
    const reader = body.getReader();
    const chunks: Uint8Array[] = [];
    let length = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      length += value.byteLength;
    }
    return concatBytes(chunks, length) as Uint8Array<ArrayBuffer>;
  }
}
