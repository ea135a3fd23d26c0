// The compiled addon: found once, on first use (importing the package does no work). napi-rs's
// naming: `blake3-web-native.<platform>.node` next to the package (where the repo's build puts
// the host's), else the per-platform package `@blake3-web/native-<platform>` that carries it.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** The addon's functions (crate/src/lib.rs). */
export type Addon = {
  contextKey(context: string): Uint8Array;
  hashSubtreesInto(
    input: Uint8Array,
    counter: number,
    subtreeChunks: number,
    kind: number,
    key: Uint8Array,
    out: Uint8Array,
  ): number;
};

/** The native addon cannot be loaded on this machine: none was built or installed for it, or it failed to load. */
export class NativeAddonError extends Error {
  override name = 'NativeAddonError';
}

/** napi-rs's platform name: `linux-x64-gnu`, `linux-arm64-musl`, `darwin-arm64`, `win32-x64-msvc`... */
export function platformName(): string {
  const { platform, arch } = process;
  if (platform === 'linux') {
    const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
    return `linux-${arch}-${header?.glibcVersionRuntime === undefined ? 'musl' : 'gnu'}`;
  }
  if (platform === 'win32') return `win32-${arch}-msvc`;
  return `${platform}-${arch}`;
}

let addon: Addon | undefined;
let failure: NativeAddonError | undefined;

/** The addon, loaded once; throws a NativeAddonError (the same one each time) where there is none. */
export function loadAddon(): Addon {
  if (addon !== undefined) return addon;
  if (failure !== undefined) throw failure;
  const require = createRequire(import.meta.url);
  const name = platformName();
  const file = fileURLToPath(new URL(`../blake3-web-native.${name}.node`, import.meta.url));
  const tried: string[] = [];
  for (const id of [file, `@blake3-web/native-${name}`]) {
    try {
      return (addon = require(id) as Addon);
    } catch (e) {
      const code = (e as { code?: string }).code;
      // A file or package that is there but does not load is reported as it is.
      if (code !== 'MODULE_NOT_FOUND') tried.push(`${id}: ${(e as Error).message}`);
      else tried.push(`${id}: not found`);
    }
  }
  failure = new NativeAddonError(
    `@blake3-web/native has no addon for ${name} (tried ${tried.join('; ')}): install @blake3-web/native-${name}, or build it with cargo (npm run build in packages/native)`,
  );
  throw failure;
}
