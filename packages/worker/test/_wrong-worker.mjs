// A worker that answers every call, as comlink expects, with a 31-byte value: not ours.
import { parentPort } from 'node:worker_threads';

parentPort.on('message', (m) => parentPort.postMessage({ id: m.id, type: 'RAW', value: new Uint8Array(31) }));
