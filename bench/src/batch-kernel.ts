// The `many` kernel alone, the ceiling of hashMany: the messages already in its memory and its job
// table written once, so a batch costs only the kernel calls; and the same with each piece's
// messages copied in first, the part of hashMany's work no planning can save. It reaches into the
// package's sources for the kernel's module, its batch piece and its job writer (no Node APIs:
// the browsers' benchmark page bundles it too).
import { manyModule } from '../../packages/core/src/wasm/_generator.ts';
import type { KernelExports } from '../../packages/core/src/wasm/_layout.ts';
import { MANY_IN, MANY_IN_LEN, MANY_MAX_MESSAGES } from '../../packages/core/src/wasm/_many-layout.ts';
import { wasmManyJobs } from '../../packages/core/src/wasm/_many.ts';
import type { KernelRun } from './batch-measure.ts';

const CHUNK_LEN = 1024;
const IV = new Uint32Array([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
]);

/**
 * A batch of `messages` on the kernel alone, when they are all one length of one chunk at most
 * (undefined otherwise): one piece of them is copied in and its job table written once, and
 * `alone` calls `many` on that piece as often as the whole batch needs pieces; `copying` copies
 * each piece's messages in (one `set()` each, as hashMany does) before its call.
 */
export function kernelBatch(messages: readonly Uint8Array[]): { alone: KernelRun; copying: KernelRun } | undefined {
  const len = messages[0]?.length ?? 0;
  if (len === 0 || len > CHUNK_LEN || messages.some((m) => m.length !== len)) return undefined;
  const padded = (len + 63) & -64;
  const perPiece = Math.min(MANY_MAX_MESSAGES, Math.floor(MANY_IN_LEN / padded), messages.length);
  const instance = new WebAssembly.Instance(new WebAssembly.Module(manyModule()));
  const { many, memory } = instance.exports as unknown as KernelExports;
  const mem8 = new Uint8Array(memory.buffer);
  const k = wasmManyJobs(instance);
  k.start(IV, 0, false);
  for (let i = 0; i < perPiece; i++) {
    k.input(messages[i], i * padded, padded);
    k.chunk(i * padded, len, 0, true, i);
  }
  // Writes the key and the job table, which every later call reads again as it is.
  k.run();
  const pieces = Math.ceil(messages.length / perPiece);
  const piece = (p: number) => Math.min(perPiece, messages.length - p * perPiece);
  const firstDigests = () => Array.from({ length: perPiece }, (_, i) => k.output(i, 32));
  const run = () => {
    for (let p = 0; p < pieces; p++) many(piece(p), 0, 0);
  };
  /** Copies piece `p`'s messages in and hashes them. */
  const copyAndRun = (p: number) => {
    const n = piece(p);
    for (let i = 0; i < n; i++) mem8.set(messages[p * perPiece + i], MANY_IN + i * padded);
    many(n, 0, 0);
  };
  const runCopying = () => {
    for (let p = 0; p < pieces; p++) copyAndRun(p);
  };
  return {
    alone: { run, digests: () => (run(), firstDigests()) },
    copying: {
      run: runCopying,
      // The piece's input cleared first, so what is checked is what the copies put there.
      digests: () => (mem8.fill(0, MANY_IN, MANY_IN + perPiece * padded), copyAndRun(0), firstDigests()),
    },
  };
}
