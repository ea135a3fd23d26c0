import { encodeModule, FunctionBody } from './_module.js';
import { I32X4_SPLAT, TYPE_V128 } from './_opcodes.js';

/** A 1-instruction module that returns a v128: valid exactly where SIMD is. */
function simdProbe(): Uint8Array<ArrayBuffer> {
  const body = new FunctionBody(0).i32(0).simd(I32X4_SPLAT);
  return encodeModule([{ name: 'f', params: [], results: [TYPE_V128], body }]);
}

/** Whether this engine accepts WebAssembly SIMD (128-bit), judged by validating the probe module. */
export function simdSupported(): boolean {
  if (typeof WebAssembly !== 'object' || typeof WebAssembly.validate !== 'function') return false;
  try {
    return WebAssembly.validate(simdProbe());
  } catch {
    return false;
  }
}

/**
 * Whether this engine compiles WebAssembly from bytes at all, judged by compiling the probe
 * module: synchronously if allowed, else asynchronously (a size limit on synchronous compilation
 * never refuses a module this small). Cloudflare Workers and a CSP without
 * 'wasm-unsafe-eval' refuse both, and then the kernel is not worth generating.
 */
export function compilationAllowed(): true | Promise<boolean> {
  const probe = simdProbe();
  try {
    new WebAssembly.Module(probe);
    return true;
  } catch {
    return Promise.resolve(probe)
      .then((b) => WebAssembly.compile(b))
      .then(
        () => true,
        () => false,
      );
  }
}
