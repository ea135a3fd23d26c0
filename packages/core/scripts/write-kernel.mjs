#!/usr/bin/env node
// Writes dist/kernel.wasm, the package's kernel file, from the generator in dist (run after tsc):
// the same bytes the library generates at run time, for runtimes that only take precompiled
// modules (see ready({ module }) in the README). Its declaration types the import the way those
// runtimes resolve it: a compiled WebAssembly.Module. Next.js and Vercel's edge runtime (condition
// `edge-light`) get the same file through a module that imports it with `?module`, their way of
// asking for a compiled module: a plain `.wasm` import there is instantiated instead.
import { writeFileSync } from 'node:fs';

const { kernelModule } = await import(new URL('../dist/wasm/_generator.js', import.meta.url).href);
writeFileSync(new URL('../dist/kernel.wasm', import.meta.url), kernelModule());
writeFileSync(
  new URL('../dist/kernel.wasm.d.ts', import.meta.url),
  `/** The wasm-simd kernel, compiled by a runtime that imports .wasm files as modules: pass it to ready({ module }). */
declare const kernel: WebAssembly.Module;
export default kernel;
`,
);
writeFileSync(
  new URL('../dist/kernel.edge-light.js', import.meta.url),
  `import kernel from './kernel.wasm?module';
export default kernel;
`,
);
