// What hashes the leaves of the bytes passing through the verifying store: the core's WASM SIMD
// kernel, or `@blake3-web/native` (an optional peer), the official Rust crate with AVX2 or NEON,
// which takes less CPU per GiB on a server. The addon is checked once against the core before it
// hashes a byte: an addon that gives other chaining values (a wrong build, a broken copy) is not
// used, or with `hasher: 'native'` is an error; never a wrong hash.
import { hashSubtrees, Mode } from '@blake3-web/core/hazmat';

/** `Blake3StoreOpts.hasher`: which code hashes the leaves. */
export type HasherChoice = 'auto' | 'native' | 'wasm';

/** Which code a store hashes with once its hasher settled. */
export type HasherBackend = 'native' | 'wasm';

/** `hashSubtrees` of `@blake3-web/core/hazmat`, as either backend computes it. */
export type HashSubtrees = (input: Uint8Array, inputOffset: number, subtreeLen: number, mode: Mode) => Uint8Array;

/** The leaf hasher a store uses, settled. */
export type SubtreeHasher = { readonly backend: HasherBackend; readonly hashSubtrees: HashSubtrees };

/** The module `@blake3-web/native` as this package uses it. */
export type NativeModule = { hashSubtrees: HashSubtrees };

/** `hasher: 'native'` where `@blake3-web/native` cannot be loaded, or gives other values than the core. */
export class NativeHasherError extends Error {
  override readonly name = 'NativeHasherError';
}

export const HASHER_CHOICES: readonly HasherChoice[] = ['auto', 'native', 'wasm'];

const WASM: SubtreeHasher = { backend: 'wasm', hashSubtrees };

/**
 * The smallest leaves the addon hashes. The crate hashes a subtree at a time, so leaves of one or
 * two chunks get none of its SIMD lanes, while the core's kernel spreads many leaves over its
 * lanes: per GiB in 1 MiB batches, leaves of 1 KiB took 1.42 s native against 0.73 WASM, 2 KiB
 * 0.74 against 0.70, 4 KiB 0.45 against 0.79, 64 KiB 0.29 against 0.76 (one run, load 9).
 * Smaller leaves (an outboard's of `chunkGroupLog` 0 or 1) stay with the core.
 */
export const NATIVE_MIN_LEAF = 4096;

/**
 * The addon against the core: in each mode, leaves of one and of several chunks, from zero and
 * past it, the last one short. Returns why they differ, or undefined when they agree.
 */
function disagreement(native: NativeModule): string | undefined {
  const input = new Uint8Array(5 * 4096 + 1000);
  for (let i = 0; i < input.length; i++) input[i] = i % 251;
  const key = new Uint8Array(32).map((_, i) => 255 - i);
  for (const mode of [new Mode(), new Mode({ key }), new Mode({ context: 'blake3-web upload native check' })]) {
    for (const [offset, leaf] of [
      [0, 2048],
      [3 * 1024, 1024],
      [8 * 4096, 4096],
    ]) {
      const want = hashSubtrees(input, offset, leaf, mode);
      let got: unknown;
      try {
        got = native.hashSubtrees(input, offset, leaf, mode);
      } catch (e) {
        return `it threw ${String(e)}`;
      }
      const same = got instanceof Uint8Array && got.length === want.length && got.every((byte, i) => byte === want[i]);
      if (!same)
        return `its chaining values differ from the core's (${JSON.stringify(mode.options.context ?? 'hash')}, leaves of ${leaf} bytes at ${offset})`;
    }
  }
  return undefined;
}

/** The native backend of `native`, checked; `undefined` and why where it cannot be used. */
function checked(native: unknown): SubtreeHasher | string {
  if (typeof (native as NativeModule | undefined)?.hashSubtrees !== 'function')
    return 'it has no hashSubtrees function';
  const why = disagreement(native as NativeModule);
  if (why !== undefined) return why;
  const nativeHash = (native as NativeModule).hashSubtrees;
  return {
    backend: 'native',
    hashSubtrees: (input, at, leafBytes, mode) =>
      (leafBytes < NATIVE_MIN_LEAF ? hashSubtrees : nativeHash)(input, at, leafBytes, mode),
  };
}

const importNative = (): Promise<unknown> => import('@blake3-web/native');

/** The real addon's outcome, settled once per process: an addon that failed is not tried per store. */
let loaded: Promise<SubtreeHasher | string> | undefined;

/**
 * The leaf hasher for `choice`. `load` imports `@blake3-web/native` (replaced in tests by a module
 * that is wrong on purpose). 'auto' falls back to WASM; 'native' rejects with a
 * NativeHasherError that says why.
 */
export function subtreeHasherFor(
  choice: HasherChoice,
  load: () => Promise<unknown> = importNative,
): Promise<SubtreeHasher> {
  if (choice === 'wasm') return Promise.resolve(WASM);
  const attempt = load === importNative ? (loaded ??= nativeOutcome(load)) : nativeOutcome(load);
  return attempt.then((outcome) => {
    if (typeof outcome !== 'string') return outcome;
    if (choice === 'auto') return WASM;
    throw new NativeHasherError(`opts.hasher is 'native', but @blake3-web/native cannot be used: ${outcome}`);
  });
}

async function nativeOutcome(load: () => Promise<unknown>): Promise<SubtreeHasher | string> {
  let native: unknown;
  try {
    native = await load();
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND')
      return 'it is not installed (an optional peer dependency: install it next to @blake3-web/upload)';
    return `it failed to load: ${String(e)}`;
  }
  try {
    return checked(native);
  } catch (e) {
    // The addon loads its platform's binary on first use: none for this platform, or a broken one.
    return String(e);
  }
}
