// Which JavaScript engine runs this, for the choices that depend on it: the shape of the chunk
// rounds (kernel alone, 64 chunks per call, one interleaved run per engine on a 2-core AMD EPYC:
// docs/wasm-kernel.md) and, in backend.ts, the shortest message for the kernel's `one`. Both
// only pick a speed: every shape and path hashes the same bytes, so a wrong guess costs speed,
// never correctness.
import type { KernelOptions } from './_lanes.js';

export type Engine = 'spidermonkey' | 'javascriptcore' | 'other';

let engine: Engine | undefined;

/** The engine, from non-standard traits read once: SpiderMonkey's `InternalError` global, the `line` property JavaScriptCore gives errors. */
export function jsEngine(): Engine {
  return (engine ??=
    typeof (globalThis as { InternalError?: unknown }).InternalError === 'function'
      ? 'spidermonkey'
      : 'line' in new Error()
        ? 'javascriptcore'
        : 'other');
}

const SHAPES: Record<Engine, KernelOptions> = {
  // SpiderMonkey: G by G with byte-shuffle rotations (1587-1646 MB/s; V8's shape 1084-1125).
  spidermonkey: { order: 'g', rotate: 'shuffle' },
  // JavaScriptCore: step by step with byte-shuffle rotations (WebKitGTK 790-874, Bun 456-460; V8's shape 594-629, 385-403),
  // left shifts as multiplications (WebKitGTK 979-1031 vs 909-979, Bun 1.02x).
  javascriptcore: { order: 'steps', rotate: 'shuffle', shl: 'mul' },
  // V8 and the rest: the generator's defaults, which dist/kernel.wasm ships.
  other: {},
};

/** Generator options for this engine's fastest chunk rounds. */
export function engineKernelOptions(): KernelOptions {
  return SHAPES[jsEngine()];
}
