// The hashing worker on a worker_threads thread, from source: serveHasher on the port it is
// given, so what crosses is structured-cloned between threads as in a browser's worker.
import { register } from 'tsx/esm/api';

register();
const { workerData } = await import('node:worker_threads');
const { serveHasher } = await import('../src/serve-hasher.ts');
serveHasher(workerData.port);
