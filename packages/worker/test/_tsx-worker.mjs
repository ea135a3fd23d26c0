// The worker entry from source, for tests: Node 20 does not carry the tsx loader that the test
// process was started with into worker threads, so the worker registers it itself.
import { register } from 'tsx/esm/api';

register();
await import('../src/worker-node.ts');
