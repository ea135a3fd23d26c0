export { Blake3IntegrityPlugin, type Blake3IntegrityPluginOptions } from './blake3-integrity-plugin.js';
export {
  firstOf,
  hashFromDigestHeader,
  hashFromHeader,
  hashFromManifest,
  hashFromUrlPath,
  parseDigestField,
  type ExpectedHashResolver,
} from './resolvers.js';
export { hashFromPrecacheManifest, type Blake3PrecacheEntry } from './precache-manifest.js';
export { MIN_DIGEST_BYTES } from '@blake3-web/stream/_internal';
export { baoRangeHandler, type BaoRangeHandlerOptions } from './bao-range-handler.js';
export { fetchVerifiedRange, type VerifiedRangeOptions } from './fetch-verified-range.js';
export { parseRange } from './parse-range.js';
