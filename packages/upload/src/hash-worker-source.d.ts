// dist/hash-worker-source.js, written by scripts/bundle-worker.mjs: the hashing worker, bundled
// and minified, as one string.
declare const source: string;
export default source;
