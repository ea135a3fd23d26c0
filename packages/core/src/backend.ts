import { describe } from './_assert.js';
import { LITTLE_ENDIAN } from './_bytes.js';
import { jsKernels, type Kernels } from './_kernels.js';
import { compilationAllowed, simdSupported } from './wasm/_detect.js';
import { compileKernel, compileKernelSync, type ManyKernel, type WasmKernels } from './wasm/_kernel.js';
import { suppliedKernels } from './wasm/_supplied.js';

export type Backend = 'wasm-simd' | 'js';

const BACKENDS: readonly Backend[] = ['wasm-simd', 'js'];

// Selection happens on first use, never at import: detect SIMD once, compile synchronously where
// the engine allows it, otherwise compile asynchronously and hash with JS meanwhile. Where the
// engine refuses to compile bytes at all, the kernel is never generated (a few ms per cold
// isolate) and never retried: only a module handed to ready() can bring it.
let selected = false;
/** The wasm-simd kernels once compiled; undefined while compiling or when unavailable. */
let wasm: WasmKernels | undefined;
/** The asynchronous compilation in flight, if any. */
let compiling: Promise<void> | undefined;
/** Set by setBackend(): the caller's choice wins over the default (fastest available). */
let forced: Backend | undefined;
/** The active table. */
let table: Kernels = jsKernels;

function use(k: WasmKernels): void {
  wasm ??= k;
  if (forced !== 'js') table = wasm;
}

function select(): void {
  if (selected) return;
  selected = true;
  // WASM memory is little-endian; the kernels read it through host-order typed arrays.
  if (!LITTLE_ENDIAN || !simdSupported()) return;
  const allowed = compilationAllowed();
  if (allowed === true) {
    try {
      return use(compileKernelSync());
    } catch {
      // Refused for its size (Chromium's main thread): asynchronously below.
    }
  }
  compiling = Promise.resolve(allowed)
    .then((ok) => (ok ? compileKernel().then(use) : undefined))
    .catch(() => undefined)
    .finally(() => {
      compiling = undefined;
    });
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

/** Options of ready(). */
export interface ReadyOptions {
  /**
   * The package's kernel, `@blake3-web/core/kernel.wasm`, compiled by the runtime: for runtimes
   * that refuse to compile WebAssembly from bytes but import `.wasm` files as modules (Cloudflare
   * Workers). Checked before use: any other module is a TypeError.
   */
  readonly module?: WebAssembly.Module;
}

/**
 * Resolves once the fastest backend this environment allows is active. Without a module it never
 * rejects; with `options.module` it rejects with a TypeError when that is not the kernel, and
 * otherwise resolves with wasm-simd active (unless setBackend('js') forced JS).
 */
export function ready(options?: ReadyOptions): Promise<void> {
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    return Promise.reject(new TypeError(`options must be an object, got ${describe(options)}`));
  }
  if (options !== undefined && (ArrayBuffer.isView(options) || Object.prototype.toString.call(options) === '[object WebAssembly.Module]')) {
    // ready(module) for ready({ module }) would otherwise be ignored quietly.
    return Promise.reject(new TypeError(`options must be an object like { module }, got ${describe(options)}`));
  }
  if (options?.module === undefined) {
    select();
    return compiling ?? Promise.resolve();
  }
  return suppliedKernels(options.module).then((k) => {
    // A supplied kernel replaces detection: nothing is generated or compiled after it.
    selected = true;
    use(k);
  });
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
