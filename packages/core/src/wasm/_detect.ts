/**
 * A module of one function `() -> v128` whose body is `i32.const 0; i32x4.splat`: valid exactly
 * where SIMD is. Spelled out, so that the module writer needs only what the kernel's modules
 * have (i32 parameters, no results, one memory).
 */
const simdProbe = (): Uint8Array<ArrayBuffer> =>
  // "\0asm" 1 | type section: () -> v128 | function section | code section: 0 locals, the body, end
  Uint8Array.of(0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 8, 1, 6, 0, 65, 0, 253, 17, 11);

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
