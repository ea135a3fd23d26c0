import { encodeModule, FunctionBody } from './_module.js';

/** Whether this engine accepts WebAssembly SIMD (128-bit), judged by validating a tiny v128 module. */
export function simdSupported(): boolean {
  if (typeof WebAssembly !== 'object' || typeof WebAssembly.validate !== 'function') return false;
  try {
    const body = new FunctionBody(0).i32(0).simd('i32x4.splat');
    return WebAssembly.validate(encodeModule([{ name: 'f', type: { params: [], results: ['v128'] }, body }]));
  } catch {
    return false;
  }
}
