// The `many` kernel alone, the ceiling of hashMany: the messages already in its memory and its job
// table written once, so a batch costs only the kernel calls. It reaches into the package's
// sources for the kernel's module, its batch piece and its job writer (no Node APIs: the
// browsers' benchmark page bundles it too).
import { manyModule } from '../../packages/core/src/wasm/_generator.ts';
import type { KernelExports } from '../../packages/core/src/wasm/_layout.ts';
import { MANY_IN_LEN, MANY_MAX_MESSAGES } from '../../packages/core/src/wasm/_many-layout.ts';
import { wasmManyJobs } from '../../packages/core/src/wasm/_many.ts';

const CHUNK_LEN = 1024;
const IV = new Uint32Array([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
]);

/**
 * A batch of `messages` on the kernel alone, when they are all one length of one chunk at most
 * (undefined otherwise): one piece of them is copied in and its job table written once, and a
 * batch calls `many` on that piece as often as the whole batch needs pieces. `digests()` gives
 * the piece's digests, to check.
 */
export function kernelBatch(
  messages: readonly Uint8Array[],
): { run: () => void; digests: () => Uint8Array[] } | undefined {
  const len = messages[0]?.length ?? 0;
  if (len === 0 || len > CHUNK_LEN || messages.some((m) => m.length !== len)) return undefined;
  const padded = (len + 63) & -64;
  const perPiece = Math.min(MANY_MAX_MESSAGES, Math.floor(MANY_IN_LEN / padded), messages.length);
  const instance = new WebAssembly.Instance(new WebAssembly.Module(manyModule()));
  const many = (instance.exports as unknown as KernelExports).many;
  const k = wasmManyJobs(instance);
  k.start(IV, 0, false);
  for (let i = 0; i < perPiece; i++) {
    k.input(messages[i], i * padded, padded);
    k.chunk(i * padded, len, 0, true, i);
  }
  // Writes the key and the job table, which every later call reads again as it is.
  k.run();
  const pieces = Math.ceil(messages.length / perPiece);
  const run = () => {
    for (let p = 0; p < pieces; p++) many(Math.min(perPiece, messages.length - p * perPiece), 0, 0);
  };
  const digests = () => {
    run();
    return Array.from({ length: perPiece }, (_, i) => k.output(i, 32));
  };
  return { run, digests };
}
