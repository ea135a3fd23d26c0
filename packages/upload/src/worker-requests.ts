/**
 * The requests the hashing worker sends for the page (see worker-http-stack.ts): a body that is a
 * slice of the file is read here once, and the same bytes are hashed and sent, so the browser
 * reads the file once instead of twice (once for the request, once for the hash).
 * @module
 */
import { bytesToHex } from '@blake3-web/core';
import { releaseProxy, type Remote } from 'comlink';
import type { FileBody, RequestAnswer, RequestWorkerApi, SendRequest, WireRequest } from './_hasher-protocol.js';
import type { UploadHasher } from './upload-hasher.js';
import type { HasherState } from './_hasher-protocol.js';

/** The hasher calls of serveHasher that the requests share: run in order, on the open hasher. */
export type HasherAccess = {
  inOrder<T>(run: () => T | Promise<T>): Promise<T>;
  current(): UploadHasher;
  state(h: UploadHasher): HasherState;
  /** Reads the whole Blob (failing if the engine stalls or the file changed). */
  readWhole(blob: Blob): Promise<Uint8Array>;
};

export const fetchSend: SendRequest = async (req, body, onProgress, signal) => {
  const res = await fetch(req.url, { method: req.method, headers: req.headers, body: body as BodyInit | null, signal });
  if (body) onProgress?.(body.length);
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => (headers[name] = value));
  return { status: res.status, headers, body: await res.text() };
};

/** Sends requests with XMLHttpRequest, as tus-js-client's browser stack does (it exists in dedicated workers). */
export const xhrSend: SendRequest = (req, body, onProgress, signal) =>
  new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(req.method, req.url, true);
    for (const [name, value] of Object.entries(req.headers)) xhr.setRequestHeader(name, value);
    if (onProgress) xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded);
    xhr.onload = () =>
      resolve({ status: xhr.status, headers: parseHeaders(xhr.getAllResponseHeaders()), body: xhr.responseText });
    xhr.onerror = () => reject(new Error(`the ${req.method} request to ${req.url} failed (network error)`));
    xhr.onabort = () => reject(new DOMException(`the ${req.method} request was aborted`, 'AbortError'));
    signal.addEventListener('abort', () => xhr.abort(), { once: true });
    // A Blob of the bytes (a copy), so the caller may hash them while they go out. Sent as a
    // typed array, Chromium 156 sends the body in small pieces: 512 MiB took 42 s instead of 7 s,
    // 23 s of the server's CPU instead of 3.6 (fetch() the same).
    xhr.send(body && new Blob([body as Uint8Array<ArrayBuffer>]));
  });

function parseHeaders(all: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of all.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

const errorOf = (e: unknown) =>
  e instanceof Error || e instanceof DOMException
    ? { name: e.name, message: e.message }
    : { name: 'Error', message: String(e) };

/** The request calls of the hashing worker, on the hasher `access` serves. */
export function requestApi(access: HasherAccess, send: SendRequest): RequestWorkerApi {
  const running = new Map<number, AbortController>();

  /**
   * The slice tus will most likely ask for next (the one after this), read while this one is
   * sent, so that reading is off the request's critical path.
   */
  let ahead: { offset: number; size: number; bytes: Promise<Uint8Array> } | undefined;
  const bytesOf = (body: FileBody): Promise<Uint8Array> => {
    const hit = ahead !== undefined && ahead.offset === body.offset && ahead.size === body.blob.size;
    const bytes = hit ? ahead!.bytes : access.readWhole(body.blob);
    ahead = undefined;
    if (body.next) {
      const next = access.readWhole(body.next.blob);
      next.catch(() => undefined); // read again if asked for
      ahead = { offset: body.next.offset, size: body.next.blob.size, bytes: next };
    }
    return bytes;
  };

  /** Reads the slice, hashes it and starts its request, in order with the hasher's other calls. */
  const start = (
    req: WireRequest,
    body: FileBody,
    onProgress: Remote<(n: number) => void> | undefined,
    signal: AbortSignal,
  ) =>
    access.inOrder(async () => {
      const bytes = await bytesOf(body);
      signal.throwIfAborted();
      const h = access.current();
      let root: Uint8Array | undefined;
      if (body.rootHeader !== undefined) {
        // The last slice: its request carries the root, so it is hashed before it goes.
        h.write(body.offset, bytes);
        root = h.digest();
        req = { ...req, headers: { ...req.headers, [body.rootHeader]: bytesToHex(root) } };
      }
      const response = send(req, bytes, onProgress && ((n) => void onProgress(n)), signal);
      response.catch(() => undefined); // awaited by the caller after the hash
      if (root === undefined) h.write(body.offset, bytes);
      return { response, root };
    });

  return {
    async request(id, req, body, onProgress) {
      const controller = new AbortController();
      running.set(id, controller);
      const progress = onProgress as Remote<(n: number) => void> | undefined;
      const answer: RequestAnswer = {};
      try {
        if (body === null) {
          answer.response = await send(req, null, progress && ((n) => void progress(n)), controller.signal);
          return answer;
        }
        const started = await start(req, body, progress, controller.signal);
        if (started.root) answer.root = started.root;
        answer.response = await started.response;
      } catch (e) {
        answer.error = errorOf(e);
      } finally {
        running.delete(id);
        progress?.[releaseProxy]();
        // The state either way: a request that failed may have been hashed, and the page must
        // know where the hash stands.
        if (body !== null) {
          try {
            answer.state = access.state(access.current());
          } catch {
            // no hasher open: the error says why
          }
        }
      }
      return answer;
    },
    abort(id) {
      running.get(id)?.abort();
    },
  };
}
