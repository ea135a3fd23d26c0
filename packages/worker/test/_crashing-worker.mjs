// A worker that dies on its first message, as one that runs out of memory would.
import { parentPort } from 'node:worker_threads';

parentPort.on('message', () => process.exit(7));
