/**
 * The worker side of WorkerHasher: serves one UploadHasher on a comlink endpoint. The
 * `@blake3-web/upload/hash-worker` entry calls it on a worker's global scope; anything else with
 * a message port (a MessageChannel, a worker_threads port through comlink's node adapter) works.
 * @module
 */
import { expose, type Endpoint } from 'comlink';
import type { HasherState, HasherWorkerApi } from './_hasher-protocol.js';
import { describe } from './_assert.js';
import { UploadHasher } from './upload-hasher.js';

export function serveHasher(endpoint: Endpoint): void {
  let hasher: UploadHasher | undefined;
  const current = (): UploadHasher => {
    if (hasher === undefined) throw new Error('the hasher is not open');
    return hasher;
  };
  const state = (h: UploadHasher): HasherState => ({ offset: h.offset, checkpoint: h.checkpoint() });
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
        return state(hasher);
      }),
    write: (offset, bytes) =>
      inOrder(() => {
        const h = current();
        h.write(offset, bytes);
        return state(h);
      }),
    read(offset, blob) {
      // Started now, so the next slice is read while the one before it is hashed.
      const bytes = readBlob(blob);
      bytes.catch(() => undefined); // rethrown in order, below
      return inOrder(async () => {
        const h = current();
        h.write(offset, await bytes);
        return state(h);
      });
    },
    digest: (dkLen) => inOrder(() => current().digest(dkLen)),
  };
  expose(api, endpoint);
}

async function readBlob(blob: Blob): Promise<Uint8Array> {
  if (!(blob instanceof Blob)) throw new TypeError(`blob must be a Blob, got ${describe(blob)}`);
  const bytes = new Uint8Array(await blob.arrayBuffer());
  // A file-backed Blob whose file shrank reads short in some engines instead of failing.
  if (bytes.length !== blob.size)
    throw new Error(`the file changed while it was read: ${bytes.length} bytes, expected ${blob.size}`);
  return bytes;
}
