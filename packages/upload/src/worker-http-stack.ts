/**
 * A tus-js-client 4 `httpStack` whose requests the hashing worker sends (worker-requests.ts):
 * the body of a PATCH, a slice of the File, is read once there, hashed and sent, instead of read
 * once by the browser to send it and again by the worker to hash it. Headers, progress, abort and
 * responses behave as with tus-js-client's XMLHttpRequest stack; `getUnderlyingObject()` has no
 * XMLHttpRequest to give (it lives in the worker) and returns undefined.
 * @module
 */
import type { WireRequest, WireResponse } from './_hasher-protocol.js';

/** What the stack needs of the upload's file source (HashingSource). */
export interface RequestSender {
  /** Sends `req`; a `body` is the slice of the file from `offset`. */
  request(
    id: number,
    req: WireRequest,
    body: { offset: number; blob: Blob } | null,
    onProgress?: (sent: number) => void,
  ): Promise<WireResponse>;
  abort(id: number): void;
}

/** tus-js-client's HttpStack, HttpRequest and HttpResponse, as far as they are used here. */
export interface TusHttpStack {
  createRequest(method: string, url: string): TusHttpRequest;
  getName(): string;
}
export interface TusHttpRequest {
  getMethod(): string;
  getURL(): string;
  setHeader(name: string, value: string): void;
  getHeader(name: string): string | undefined;
  setProgressHandler(handler: (sent: number) => void): void;
  send(body?: unknown): Promise<TusHttpResponse>;
  abort(): Promise<void>;
  getUnderlyingObject(): unknown;
}
export interface TusHttpResponse {
  getStatus(): number;
  getHeader(name: string): string | undefined;
  getBody(): string;
  getUnderlyingObject(): unknown;
}

let nextId = 0;

export class WorkerHttpStack implements TusHttpStack {
  readonly #sender: () => RequestSender | undefined;

  /** `sender` is the upload's file source, once tus has opened it (before its first request). */
  constructor(sender: () => RequestSender | undefined) {
    this.#sender = sender;
  }

  getName(): string {
    return 'blake3-web: requests sent by the hashing worker';
  }

  createRequest(method: string, url: string): TusHttpRequest {
    return new WorkerRequest(method, url, this.#sender);
  }
}

class WorkerRequest implements TusHttpRequest {
  readonly #id = nextId++;
  readonly #method: string;
  readonly #url: string;
  readonly #headers: Record<string, string> = {};
  readonly #sender: () => RequestSender | undefined;
  #onProgress: ((sent: number) => void) | undefined;

  constructor(method: string, url: string, sender: () => RequestSender | undefined) {
    this.#method = method;
    this.#url = url;
    this.#sender = sender;
  }

  getMethod(): string {
    return this.#method;
  }
  getURL(): string {
    return this.#url;
  }
  setHeader(name: string, value: string): void {
    this.#headers[name] = value;
  }
  getHeader(name: string): string | undefined {
    return this.#headers[name];
  }
  setProgressHandler(handler: (sent: number) => void): void {
    this.#onProgress = handler;
  }

  async send(body: unknown = null): Promise<TusHttpResponse> {
    const sender = this.#sender();
    if (sender === undefined)
      throw new Error('the hashing worker sends the requests: it starts when tus-js-client opens the file');
    if (body !== null && !(body instanceof Blob))
      throw new TypeError(`the request body must be a slice of the file (a Blob) or null, got ${typeof body}`);
    // tus sends a slice with a PATCH at its Upload-Offset, or with the POST that creates the
    // upload (uploadDataDuringCreation), from byte 0.
    const offset = this.#method === 'POST' ? 0 : Number(this.#headers['Upload-Offset']);
    if (body !== null && !Number.isSafeInteger(offset))
      throw new RangeError(
        `a request with a body needs its Upload-Offset header, got ${this.#headers['Upload-Offset']}`,
      );
    const req: WireRequest = { method: this.#method, url: this.#url, headers: { ...this.#headers } };
    const response = await sender.request(this.#id, req, body && { offset, blob: body }, this.#onProgress);
    return new WorkerResponse(response);
  }

  async abort(): Promise<void> {
    this.#sender()?.abort(this.#id);
  }

  getUnderlyingObject(): undefined {
    return undefined;
  }
}

class WorkerResponse implements TusHttpResponse {
  readonly #response: WireResponse;
  constructor(response: WireResponse) {
    this.#response = response;
  }
  getStatus(): number {
    return this.#response.status;
  }
  getHeader(name: string): string | undefined {
    return this.#response.headers[name.toLowerCase()];
  }
  getBody(): string {
    return this.#response.body;
  }
  getUnderlyingObject(): undefined {
    return undefined;
  }
}
