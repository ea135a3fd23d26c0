// A worker that takes messages and never answers, as a hung or deadlocked worker would.
import { parentPort } from 'node:worker_threads';

parentPort.on('message', () => {});
