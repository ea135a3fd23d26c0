import { isBackendAvailable, setBackend, type Backend } from '@blake3-web/core';
import { before, describe } from 'node:test';

/** Every backend this runtime can run; each test suite runs once per backend. */
export const backends: Backend[] = (['wasm-simd', 'js'] as const).filter(isBackendAvailable);

/** `describe` once per available backend, forcing it for the suite's tests. */
export function forEachBackend(name: string, fn: (b: Backend) => void): void {
  for (const b of backends) {
    describe(`${name} [${b}]`, () => {
      before(() => setBackend(b));
      fn(b);
    });
  }
}
