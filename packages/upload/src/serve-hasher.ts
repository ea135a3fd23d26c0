/**
 * The worker side of WorkerHasher: serves one UploadHasher on a comlink endpoint. The
 * `@blake3-web/upload/hash-worker` entry calls it on a worker's global scope; anything else with
 * a message port (a MessageChannel, a worker_threads port through comlink's node adapter) works.
 * @module
 */
import { readOrStall, sendErrorsWhole, STALL_MS } from '@blake3-web/worker/_internal';
import { expose, type Endpoint } from 'comlink';
import type { HasherState, HasherWorkerApi } from './_hasher-protocol.js';
import { describe } from './_assert.js';
import { CheckpointError, modeName, readCheckpoint } from './checkpoint.js';
import { UploadHasher } from './upload-hasher.js';

const state = (h: UploadHasher): HasherState => ({
  offset: h.offset,
  checkpoint: h.checkpoint(),
  confirmed: h.confirmed,
});

/** Serves one UploadHasher on `endpoint`; `stallMs` bounds each wait for bytes of the file. */
export function serveHasher(endpoint: Endpoint, stallMs: number = STALL_MS): void {
  // Errors thrown here reach the page as the class they were thrown as, CheckpointError with its reason.
  sendErrorsWhole();
  let hasher: UploadHasher | undefined;
  let mode = '';
  const current = (): UploadHasher => {
    if (hasher === undefined) throw new Error('the hasher is not open');
    return hasher;
  };
  // comlink runs each call as its message arrives; a read waits for its bytes, so calls are
  // chained to run in the order they were sent (a refused call does not stop the ones after it).
  let queue: Promise<unknown> = Promise.resolve();
  const inOrder = <T>(run: () => T | Promise<T>): Promise<T> => {
    const result = queue.then(run);
    queue = result.catch(() => undefined);
    return result;
  };
  const api: HasherWorkerApi = {
    open: (opts) =>
      inOrder(() => {
        hasher = new UploadHasher(opts);
        mode = modeName(opts);
        return state(hasher);
      }),
    expect: (expected) =>
      inOrder(() => {
        const h = current();
        h.expect(expected);
        return state(h);
      }),
    // A stored checkpoint is checked here, once, and not on the page: here is the hasher it is
    // compared with, in the mode it runs in (no copy of the mode on the page can disagree), and
    // no path can hand it a state that was not checked. Refusals cross with their reason.
    expectCheckpoint: (checkpoint, upload, size) =>
      inOrder(() => {
        const h = current();
        const expected = readCheckpoint(checkpoint, upload, mode);
        if (expected.offset >= size)
          throw new CheckpointError(
            'foreign',
            `checkpoint refused: it covers ${expected.offset} bytes, the file has ${size}`,
          );
        // A hasher already past the checkpoint's offset cannot check the input against it.
        if (expected.offset < h.offset) return { ...state(h), expecting: undefined };
        h.expect(expected);
        return { ...state(h), expecting: expected.offset };
      }),
    write: (offset, bytes) =>
      inOrder(() => {
        const h = current();
        h.write(offset, bytes);
        return state(h);
      }),
    read: (offset, blob) => inOrder(() => readInto(current(), offset, blob, stallMs)),
    digest: (dkLen) => inOrder(() => current().digest(dkLen)),
    // Not in order: a live worker answers while a read waits for the file.
    ping: () => 'pong',
  };
  expose(api, endpoint);
}

/**
 * Streams the Blob into the hasher, each piece hashed as it arrives: in Chromium 156 this costs
 * a quarter less CPU than reading the slice whole (`arrayBuffer()`), and holds no more than a
 * piece. A plain reader loop, as WebKit has no async iteration of streams.
 */
async function readInto(h: UploadHasher, offset: number, blob: Blob, stallMs: number): Promise<HasherState> {
  if (!(blob instanceof Blob)) throw new TypeError(`blob must be a Blob, got ${describe(blob)}`);
  const reader = blob.stream().getReader();
  let at = offset;
  const read = () => readOrStall(reader.read(), stallMs, `reading the file at ${at}`);
  try {
    for (let r = await read(); !r.done; r = await read()) {
      h.write(at, r.value);
      at += r.value.length;
    }
  } catch (e) {
    reader.cancel().catch(() => undefined);
    throw e;
  }
  // A file-backed Blob whose file shrank reads short in some engines instead of failing.
  if (at - offset !== blob.size)
    throw new Error(`the file changed while it was read: ${at - offset} bytes at ${offset}, expected ${blob.size}`);
  return state(h);
}
