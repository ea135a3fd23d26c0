/**
 * The worker entry for browsers (`@blake3-web/worker/worker`): start it as a module worker and
 * hand it to `createPool({ createWorker })`. Importing it serves the pool's requests on the
 * worker's global scope and says so (WORKER_READY): that is its only effect.
 * @module
 */
import type { Endpoint } from 'comlink';
import { serveWorker } from './_serve-worker.js';
import { openFileUnsupported } from './_open-file-browser.js';
import { WORKER_READY } from './protocol.js';

serveWorker(globalThis as unknown as Endpoint, openFileUnsupported);
(globalThis as unknown as Endpoint).postMessage(WORKER_READY);
