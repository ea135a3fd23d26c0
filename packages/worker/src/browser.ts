// The package bound to the browser platform (the "default" export condition).
import { createPoolOn, type Pool, type PoolOpts } from './pool.js';
import { browserPlatform } from './platform-browser.js';
import { sharedHashFile } from './hash-file.js';
import type { HashFileOpts } from './hash-job.js';

/** Creates a pool of Web Workers; workers start on first use. See PoolOpts. */
export function createPool(opts?: PoolOpts): Pool {
  return createPoolOn(browserPlatform, opts);
}

/** The hash of a Blob or File on a shared pool of default size, created on first use. */
export const hashFile: (file: Blob | string, opts?: HashFileOpts) => Promise<Uint8Array> = sharedHashFile(createPool);
