// The worker's view of the platform in Node: it talks over worker_threads' parentPort through
// comlink's node adapter and reads files with fs.
import type { Endpoint } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { parentPort } from 'node:worker_threads';

export { openFile } from './_open-file-node.js';

export function parentEndpoint(): Endpoint {
  if (parentPort === null) throw new TypeError('the blake3-web worker must run in a worker thread');
  return nodeEndpoint(parentPort);
}
