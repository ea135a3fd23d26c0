/**
 * The worker entry for browsers (`@blake3-web/upload/hash-worker`): start it as a module worker
 * and hand it to `WorkerHasher.open` (or return it from `createWorker`). Importing it serves one
 * UploadHasher on the worker's global scope and says so (HASHER_READY): that is its only effect.
 * @module
 */
import type { Endpoint } from 'comlink';
import { HASHER_READY } from './_hasher-protocol.js';
import { serveHasher } from './serve-hasher.js';

serveHasher(globalThis as unknown as Endpoint);
(globalThis as unknown as Endpoint).postMessage(HASHER_READY);
