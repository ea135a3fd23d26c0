// Generates the WebAssembly SIMD kernel of the wasm-simd backend at run time: no .wasm file is
// shipped. Its memory layout is in _layout.ts, the building blocks of its functions (G, rounds,
// transposes, loads) in _lanes.ts, `many` with its job-table writer in _many.ts, the other
// functions in _functions.ts.
import { gTemplates, type KernelOptions } from './_lanes.js';
import { chunksFunction, oneFunction, xofFunction } from './_functions.js';
import { PAGES } from './_layout.js';
import { manyFunction } from './_many.js';
import { encodeModule } from './_module.js';

export type { KernelOptions } from './_lanes.js';

/** The kernel module's bytes; deterministic for given options. */
export function kernelModule(options: KernelOptions = {}): Uint8Array<ArrayBuffer> {
  // Defaults measured (docs/wasm-kernel.md): 16-byte loads + transposes beat one 4-byte load per
  // lane (V8 1 MiB: 2054 vs 2010 MB/s; JSC 1567 vs 1528); 2 interleaved groups beat 1 in V8
  // (1 MiB: 2006-2084 vs 1846-1977 MB/s) and tie in SpiderMonkey and JSC.
  const opts: Required<KernelOptions> = {
    loads: options.loads ?? 'transpose',
    interleave: options.interleave ?? 2,
    order: options.order ?? 'g',
    rotate: options.rotate ?? 'shuffle',
  };
  const g = gTemplates(opts);
  return encodeModule(
    [chunksFunction(opts, g.chunks), xofFunction(g.simd), manyFunction(g.simd), oneFunction(g.scalar)],
    { name: 'memory', pages: PAGES },
  );
}
