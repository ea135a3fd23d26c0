import { describe } from './_assert.js';

export type Backend = 'wasm-simd' | 'js';

const BACKENDS: readonly Backend[] = ['wasm-simd', 'js'];
let active: Backend = 'js';

/** The backend hashing now. */
export function backend(): Backend {
  return active;
}

/** Resolves once the fastest backend this environment allows is active. */
export function ready(): Promise<void> {
  return Promise.resolve();
}

/** Whether `b` can run here. */
export function isBackendAvailable(b: Backend): boolean {
  return b === 'js';
}

/**
 * Forces a backend (tests and benchmarks compare them). Throws an Error when `b` cannot run in
 * this environment, rather than hashing with something else.
 */
export function setBackend(b: Backend): void {
  if (typeof b !== 'string') throw new TypeError(`backend must be a string, got ${describe(b)}`);
  if (!BACKENDS.includes(b)) throw new RangeError(`backend must be one of ${BACKENDS.join(', ')}, got ${JSON.stringify(b)}`);
  if (!isBackendAvailable(b)) throw new Error(`the ${b} backend is not available in this environment`);
  active = b;
}
