/**
 * The worker entry for Node (`@blake3-web/worker/worker` under the "node" condition): run it as
 * a worker_threads Worker. Importing it serves the pool's requests on parentPort.
 * @module
 */
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { parentPort } from 'node:worker_threads';
import { openFile } from './_open-file-node.js';
import { serveWorker } from './_serve-worker.js';

if (parentPort === null) throw new TypeError('@blake3-web/worker/worker must run in a worker thread');
serveWorker(nodeEndpoint(parentPort), openFile);
