// A worker whose one call throws the error it is asked for, served as the pool's and the upload's
// workers are (sendErrorsWhole, then comlink's expose): what crosses is what callers see.
import { register } from 'tsx/esm/api';

register();
const { expose } = await import('comlink');
const { default: nodeEndpoint } = await import('comlink/dist/esm/node-adapter.mjs');
const { parentPort } = await import('node:worker_threads');
const { sendErrorsWhole } = await import('../src/_errors.ts');
const { thrownInWorker } = await import('./_thrown-errors.ts');

sendErrorsWhole();
expose({ throwIt: (kind) => thrownInWorker(kind), ping: () => 'pong' }, nodeEndpoint(parentPort));
parentPort.postMessage('loaded');
