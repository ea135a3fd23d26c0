// A worker stuck in a loop from its first message on, as a worker with a bug would be.
import { parentPort } from 'node:worker_threads';

parentPort.on('message', () => {
  for (;;);
});
