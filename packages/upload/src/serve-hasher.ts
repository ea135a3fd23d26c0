/**
 * The worker side of WorkerHasher: serves one UploadHasher on a comlink endpoint. The
 * `@blake3-web/upload/hash-worker` entry calls it on a worker's global scope; anything else with
 * a message port (a MessageChannel, a worker_threads port through comlink's node adapter) works.
 * @module
 */
import { expose, type Endpoint } from 'comlink';
import type { HasherState, HasherWorkerApi } from './_hasher-protocol.js';
import { UploadHasher } from './upload-hasher.js';

export function serveHasher(endpoint: Endpoint): void {
  let hasher: UploadHasher | undefined;
  const current = (): UploadHasher => {
    if (hasher === undefined) throw new Error('the hasher is not open');
    return hasher;
  };
  const state = (h: UploadHasher): HasherState => ({ offset: h.offset, checkpoint: h.checkpoint() });
  const api: HasherWorkerApi = {
    open(opts) {
      hasher = new UploadHasher(opts);
      return state(hasher);
    },
    write(offset, bytes) {
      const h = current();
      h.write(offset, bytes);
      return state(h);
    },
    digest: (dkLen) => current().digest(dkLen),
  };
  expose(api, endpoint);
}
