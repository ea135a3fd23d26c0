import { describe } from './_assert.js';
import { LITTLE_ENDIAN } from './_bytes.js';
import { jsKernels } from './_js-backend.js';
import { jsManyJobs } from './_js-many.js';
import type { Backend, Kernels, ManyJobs } from './_kernels.js';
import { compilationAllowed, simdSupported } from './wasm/_detect.js';
import { jsEngine } from './wasm/_engine.js';
import { wasmManyJobs } from './wasm/_many.js';
import { suppliedKernel } from './wasm/_supplied.js';
import { manyModule } from './wasm/_generator.js';
import { instantiate, instantiateSync, kernelBytes, wrap } from './wasm/_wasm-backend.js';

export type { Backend } from './_kernels.js';

const BACKENDS: readonly Backend[] = ['wasm-simd', 'js'];

// Which backend runs, decided here alone. The active table serves every call from these sizes
// on; smaller calls go to the JS kernels, which are faster there whichever table is active
// (measurements in docs/wasm-kernel.md).
/**
 * Chunks per `chunks()` call: one chunk costs a whole 4-lane group (2 KiB one-shot: 895 MB/s
 * with the kernel on 2 lanes, 701 scalar).
 */
const MIN_CHUNKS = 2;
/** Root output blocks per `rootBlocks()` call (2 blocks: 203 vs 163 MB/s; 1: 102 vs 105). */
const MIN_XOF_BLOCKS = 2;
/**
 * Bytes of a single-chunk message: the copy in and the call cost less than the JS rounds save
 * (Node: 128 B 595 vs 499 MB/s, 1 KiB 878 vs 673; 64 B 343 vs 390). SpiderMonkey's JS rounds are
 * slow enough that `one` wins from the first byte (Firefox, 64 B one-shot: 145 vs 84 MB/s, reused
 * hasher 78 vs 69); JavaScriptCore's are not (WebKitGTK 64 B: 166 vs 188).
 */
const MIN_SINGLE = 128;
const MIN_SINGLE_SPIDERMONKEY = 1;
/** Messages (or parents) per batch on the kernel's `many`; fewer go to the JS jobs: a kernel step always hashes 4 lanes. */
const MIN_BATCH = 4;

// The table is selected on first use, never at import: detect SIMD once, compile synchronously
// where the engine allows it, otherwise compile asynchronously and hash with JS meanwhile. Where
// the engine refuses to compile bytes at all, the kernel is never generated (a few ms per cold
// isolate) and never retried: only a module handed to ready() can bring it.
let selected = false;
/** The kernel once compiled; undefined while compiling or when unavailable. */
let instance: WebAssembly.Instance | undefined;
/** The wasm-simd kernels over `instance`. */
let wasm: Kernels | undefined;
/** The asynchronous compilation in flight, if any. */
let compiling: Promise<void> | undefined;
/** Set by setBackend(): the caller's choice wins over the default (fastest available). */
let forced: Backend | undefined;
/** The active table. */
let table: Kernels = jsKernels;

function use(kernel: WebAssembly.Instance): void {
  if (!instance) ((instance = kernel), (wasm = wrap(kernel)));
  if (forced !== 'js') table = wasm!;
}

function select(): void {
  if (selected) return;
  selected = true;
  // WASM memory is little-endian; the kernels read it through host-order typed arrays.
  if (!LITTLE_ENDIAN || !simdSupported()) return;
  const allowed = compilationAllowed();
  if (allowed === true) {
    try {
      return use(instantiateSync(kernelBytes()));
    } catch {
      // Refused for its size (Chromium's main thread): asynchronously below.
    }
  }
  compiling = Promise.resolve(allowed)
    .then((ok) => (ok ? instantiate(kernelBytes()).then(use) : undefined))
    .catch(() => undefined)
    .finally(() => {
      compiling = undefined;
    });
}

/** The active table (selects the backend on first use). */
function kernels(): Kernels {
  if (!selected) select();
  return table;
}

/** The kernels for a `chunks()` call of `n` chunks. */
export function chunkKernels(n: number): Kernels {
  return n >= MIN_CHUNKS ? kernels() : jsKernels;
}

/** The kernels for a `rootBlocks()` call of `blocks` blocks. */
export function xofKernels(blocks: number): Kernels {
  return blocks >= MIN_XOF_BLOCKS ? kernels() : jsKernels;
}

/** The kernels for the single-chunk hash of `len` bytes. */
export function singleChunkKernels(len: number): Kernels {
  return len >= (jsEngine() === 'spidermonkey' ? MIN_SINGLE_SPIDERMONKEY : MIN_SINGLE) ? kernels() : jsKernels;
}

let jsMany: ManyJobs | undefined;
let wasmMany: ManyJobs | undefined;
let manyAsked = false;

/**
 * The kernel's jobs: on the instance itself when it has `many` (a supplied kernel), else on the
 * batch piece, generated and compiled on the first batch (asynchronously where the engine wants
 * that: batches stay on JS until it is ready, or for good if it fails).
 */
function kernelMany(): ManyJobs | undefined {
  if (manyAsked) return wasmMany;
  manyAsked = true;
  if (instance!.exports.many) return (wasmMany = wasmManyJobs(instance!));
  const bytes = manyModule();
  try {
    wasmMany = wasmManyJobs(instantiateSync(bytes));
  } catch {
    instantiate(bytes).then(
      (piece) => void (wasmMany = wasmManyJobs(piece)),
      () => undefined,
    );
  }
  return wasmMany;
}

/** The jobs for a batch of `count` messages (or parents). */
export function manyJobs(count: number): ManyJobs {
  return (count >= MIN_BATCH && kernels() === wasm && kernelMany()) || (jsMany ??= jsManyJobs());
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
  if (
    options !== undefined &&
    (ArrayBuffer.isView(options) || Object.prototype.toString.call(options) === '[object WebAssembly.Module]')
  ) {
    // ready(module) for ready({ module }) would otherwise be ignored quietly.
    return Promise.reject(new TypeError(`options must be an object like { module }, got ${describe(options)}`));
  }
  if (options?.module === undefined) {
    select();
    return compiling ?? Promise.resolve();
  }
  return suppliedKernel(options.module).then((k) => {
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
  if (!BACKENDS.includes(b))
    throw new RangeError(`backend must be one of ${BACKENDS.join(', ')}, got ${JSON.stringify(b)}`);
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
