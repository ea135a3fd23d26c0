import { describe } from './_assert.js';
import { LITTLE_ENDIAN } from './_bytes.js';
import { jsKernels, type Kernels } from './_kernels.js';
import { simdSupported } from './wasm/_detect.js';
import { compileKernel, compileKernelSync, type ManyKernel, type WasmKernels } from './wasm/_kernel.js';

export type Backend = 'wasm-simd' | 'js';

const BACKENDS: readonly Backend[] = ['wasm-simd', 'js'];

// Selection happens on first use, never at import: detect SIMD once, compile synchronously where
// the engine allows it, otherwise compile asynchronously and hash with JS meanwhile.
let selected = false;
/** The wasm-simd kernels once compiled; undefined while compiling or when unavailable. */
let wasm: WasmKernels | undefined;
/** The asynchronous compilation in flight, if any. */
let compiling: Promise<void> | undefined;
/** Set by setBackend(): the caller's choice wins over the default (fastest available). */
let forced: Backend | undefined;
/** The active table. */
let table: Kernels = jsKernels;

function select(): void {
  if (selected) return;
  selected = true;
  // WASM memory is little-endian; the kernels read it through host-order typed arrays.
  if (!LITTLE_ENDIAN || !simdSupported()) return;
  try {
    wasm = compileKernelSync();
    table = wasm;
  } catch {
    // Synchronous compilation refused (e.g. a main-thread size limit, or a CSP without
    // 'wasm-unsafe-eval'): try asynchronously; a refusal there too leaves JS in place quietly.
    compiling = compileKernel().then(
      (k) => {
        wasm = k;
        if (forced !== 'js') table = k;
      },
      () => undefined,
    ).finally(() => {
      compiling = undefined;
    });
  }
}

/** The active bulk operations (selects the backend on first use). */
export function kernels(): Kernels {
  if (!selected) select();
  return table;
}

/** The batch entry of the active backend: the wasm kernel's `many`, or undefined for js. */
export function manyKernel(): ManyKernel | undefined {
  return wasmKernels()?.many;
}

/** The wasm-simd kernels when they are the active backend. */
export function wasmKernels(): WasmKernels | undefined {
  const active = kernels();
  return wasm !== undefined && active === wasm ? wasm : undefined;
}

/** The backend hashing now. */
export function backend(): Backend {
  return kernels().name;
}

/** Resolves once the fastest backend this environment allows is active (never rejects). */
export function ready(): Promise<void> {
  select();
  return compiling ?? Promise.resolve();
}

/** Whether `b` can run here now (for wasm-simd where compilation is asynchronous: after `ready()`). */
export function isBackendAvailable(b: Backend): boolean {
  if (b === 'js') return true;
  select();
  return b === 'wasm-simd' && wasm !== undefined;
}

/**
 * Forces a backend (tests and benchmarks compare them). Throws an Error when `b` cannot run in
 * this environment, rather than hashing with something else.
 */
export function setBackend(b: Backend): void {
  if (typeof b !== 'string') throw new TypeError(`backend must be a string, got ${describe(b)}`);
  if (!BACKENDS.includes(b)) throw new RangeError(`backend must be one of ${BACKENDS.join(', ')}, got ${JSON.stringify(b)}`);
  select();
  if (b === 'wasm-simd') {
    if (!wasm) {
      const why = compiling ? 'is still compiling: await ready() first' : 'is not available in this environment';
      throw new Error(`the wasm-simd backend ${why}`);
    }
    table = wasm;
  } else {
    table = jsKernels;
  }
  forced = b;
}
