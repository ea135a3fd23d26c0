export { hashSubtrees } from './hash-subtrees.js';
export { NativeAddonError, platformName } from './_addon.js';
