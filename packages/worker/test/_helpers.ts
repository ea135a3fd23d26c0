import { once } from 'node:events';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';

/** A worker running the package's worker entry from source (see _tsx-worker.mjs). */
export function sourceWorker(): Worker {
  return new Worker(new URL('./_tsx-worker.mjs', import.meta.url));
}

/** A worker running a test script from this folder. */
export function scriptWorker(name: string): Worker {
  return new Worker(new URL(name, import.meta.url));
}

/**
 * A worker running a test script from this folder that posts 'loaded' once it serves requests,
 * started and loaded: a test with a short liveness window must not count the seconds the tsx
 * loader takes to compile the sources under load as silence.
 */
export async function loadedWorker(name: string, opts: WorkerOptions): Promise<Worker> {
  const worker = new Worker(new URL(name, import.meta.url), opts);
  const [message] = await once(worker, 'message');
  if (message !== 'loaded') throw new Error(`${name} said ${String(message)} before it was loaded`);
  return worker;
}

/**
 * Rejects if `promise` has not settled after `ms`: a guard against hangs, not a timing check.
 * The limits are far above what the work takes.
 */
export function settlesWithin<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([promise, hang]).finally(() => clearTimeout(timer));
}

/** A temporary directory removed after the test file. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'blake3-web-worker-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export const KiB = 1024;
export const MiB = 1024 * 1024;
