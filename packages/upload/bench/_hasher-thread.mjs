// The hashing worker on a worker_threads thread, for the Node benchmarks (a page's is a Web
// Worker): the built package's serveHasher (run `build` first).
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { parentPort } from 'node:worker_threads';
import { serveHasher } from '../dist/serve-hasher.js';

serveHasher(nodeEndpoint(parentPort));
