// Generates the WebAssembly SIMD kernel of the wasm-simd backend at run time: no .wasm file is
// shipped. Its memory layout is in _layout.ts and _many-layout.ts, the building blocks of its
// functions (G, rounds, transposes, loads) in _lanes.ts, `many` with its job-table writer in
// _many.ts, the other functions in _functions.ts.
//
// At run time the kernel comes in two pieces, each generated on first use, so that a bundle
// carries the generator of only the functions it calls: `hashModule()` (what `blake3()` and the
// hasher need) and `manyModule()` (batches). Their functions are the whole kernel's, byte for
// byte; the whole kernel is the file shipped for runtimes that take only precompiled modules.
import { gTemplates, type KernelOptions } from './_lanes.js';
import { chunksFunction, oneFunction, xofFunction } from './_functions.js';
import { HASH_PAGES } from './_layout.js';
import { PAGES } from './_many-layout.js';
import { manyFunction } from './_many.js';
import { encodeModule } from './_module.js';

export type { KernelOptions } from './_lanes.js';

// Defaults measured (docs/wasm-kernel.md): V8's fastest shape on a 2-core AMD EPYC (kernel
// alone, Node 20: one group of 4 chunks 1.6-1.9x two interleaved ones; the four G functions of
// a pass step by step with shift rotations 1.07-1.19x each G whole with byte shuffles).
// Message words by 16-byte loads + transposes (one 4-byte load per lane was slower: V8 1 MiB
// 2010 vs 2054 MB/s, JSC 1528 vs 1567). Other engines' shapes: _engine.ts.
const withDefaults = (options: KernelOptions): Required<KernelOptions> => ({
  order: options.order ?? 'steps',
  rotate: options.rotate ?? 'shift',
});

/** The whole kernel module's bytes (`dist/kernel.wasm`); deterministic for given options. */
export function kernelModule(options: KernelOptions = {}): Uint8Array<ArrayBuffer> {
  const opts = withDefaults(options);
  const g = gTemplates(opts);
  return encodeModule(
    [chunksFunction(g.chunks), xofFunction(g.simd), manyFunction(g.simd), oneFunction(g.scalar)],
    PAGES,
  );
}

/** The kernel's `chunks`, `xof` and `one` on a memory of the areas they use. */
export function hashModule(options: KernelOptions = {}): Uint8Array<ArrayBuffer> {
  const opts = withDefaults(options);
  const g = gTemplates(opts);
  return encodeModule([chunksFunction(g.chunks), xofFunction(g.simd), oneFunction(g.scalar)], HASH_PAGES);
}

/** The kernel's `many` on a memory of the kernel's size (the same layout). */
export function manyModule(): Uint8Array<ArrayBuffer> {
  return encodeModule([manyFunction(gTemplates(withDefaults({})).simd)], PAGES);
}
