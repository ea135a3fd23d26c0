// The shape of the chunk rounds each engine runs fastest. Kernel alone, 64 chunks per call, in
// one interleaved run per engine (2-core AMD EPYC, docs/wasm-kernel.md). Every shape hashes the
// same bytes, so a wrong guess costs speed, never correctness.
import type { KernelOptions } from './_lanes.js';

/** SpiderMonkey: G by G with byte-shuffle rotations (1587 MB/s; V8's shape 1084). */
const SPIDERMONKEY: KernelOptions = { order: 'g', rotate: 'shuffle' };
/** JavaScriptCore: step by step with byte-shuffle rotations (WebKitGTK 874 MB/s; V8's shape 629). */
const JAVASCRIPTCORE: KernelOptions = { order: 'steps', rotate: 'shuffle' };

/** Generator options for this engine: the defaults (V8's fastest shape) unless another engine shows. */
export function engineKernelOptions(): KernelOptions {
  // Non-standard traits, read only to pick a speed: SpiderMonkey's `InternalError` global, and
  // the `line` property JavaScriptCore gives every error.
  if (typeof (globalThis as { InternalError?: unknown }).InternalError === 'function') return SPIDERMONKEY;
  if ('line' in new Error()) return JAVASCRIPTCORE;
  return {};
}
