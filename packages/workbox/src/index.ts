export { Blake3IntegrityPlugin, type Blake3IntegrityPluginOptions } from './blake3-integrity-plugin.js';
export {
  firstOf, hashFromDigestHeader, hashFromHeader, hashFromManifest, hashFromUrlPath, parseDigestField,
  type ExpectedHashResolver,
} from './resolvers.js';
export { hashFromPrecacheManifest, type Blake3PrecacheEntry } from './precache-manifest.js';
export { MIN_DIGEST_BYTES } from './verify-body.js';
export { baoRangeHandler, fetchVerifiedRange, parseRange, type BaoRangeHandlerOptions, type VerifiedRangeOptions } from './verified-range.js';
