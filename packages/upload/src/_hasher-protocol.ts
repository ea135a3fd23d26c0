// What the page and the hashing worker say to each other through comlink: types only, so both
// sides import it without pulling in the other's code.
import type { Checkpoint } from './checkpoint.js';
import type { UploadHasherOpts } from './upload-hasher.js';

/**
 * The hasher's state after a call: the offset taken and the checkpoint at or below it. Every
 * answer carries it, so saving checkpoints costs no message of its own.
 */
export type HasherState = { offset: number; checkpoint: Checkpoint };

/** Calls are answered in the order they were sent, each after the ones before it have run. */
export interface HasherWorkerApi extends RequestWorkerApi {
  /** Starts a new hasher (replacing any other), resuming from opts.checkpoint if given. */
  open(opts: UploadHasherOpts): Promise<HasherState>;
  /** UploadHasher.write. */
  write(offset: number, bytes: Uint8Array): Promise<HasherState>;
  /** Reads the Blob (a slice of the file) and writes its bytes at `offset`. */
  read(offset: number, blob: Blob): Promise<HasherState>;
  digest(dkLen: number): Promise<Uint8Array>;
}

/** An HTTP request as the worker sends it: tus-js-client's request, its headers set. */
export type WireRequest = { method: string; url: string; headers: Record<string, string> };

/** The response the page hands back to tus-js-client; header names are lowercase. */
export type WireResponse = { status: number; headers: Record<string, string>; body: string };

/**
 * A request body that is a slice of the file starting at `offset`: the worker reads it once,
 * hashes it and sends the same bytes. With `rootHeader`, the slice is the last one: the root of
 * the file goes in that header. `next`, the slice likely asked for next, is read ahead.
 */
export type FileBody = { offset: number; blob: Blob; rootHeader?: string; next?: { offset: number; blob: Blob } };

/**
 * What a request sent by the worker brings back: the response, or the error that stopped it;
 * the hasher's state after it either way (a failed request may have been hashed), and the root
 * if it carried it.
 */
export type RequestAnswer = {
  state?: HasherState;
  root?: Uint8Array;
  response?: WireResponse;
  error?: { name: string; message: string };
};

/** Sends one request (in the worker); a progress callback sees the body's bytes sent so far. */
export type SendRequest = (
  req: WireRequest,
  body: Uint8Array | null,
  onProgress: ((sent: number) => void) | undefined,
  signal: AbortSignal,
) => Promise<WireResponse>;

/** The worker's calls for the requests it sends: answered as they finish, not in order. */
export interface RequestWorkerApi {
  request(
    id: number,
    req: WireRequest,
    body: FileBody | null,
    onProgress: ((sent: number) => void) | undefined,
  ): Promise<RequestAnswer>;
  /** Aborts request `id` if it is still running. */
  abort(id: number): void;
}
