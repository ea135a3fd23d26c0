/**
 * The worker entry for browsers (`@blake3-web/upload/hash-worker`): start it as a module worker,
 * e.g. `new Worker(new URL('@blake3-web/upload/hash-worker', import.meta.url), { type: 'module' })`.
 * Importing it serves one UploadHasher on the worker's global scope: that is its only effect.
 * @module
 */
import type { Endpoint } from 'comlink';
import { serveHasher } from './serve-hasher.js';

serveHasher(globalThis as unknown as Endpoint);
