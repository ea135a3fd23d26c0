// dist/opfs-worker-source.js, written by scripts/bundle-worker.mjs: the OPFS worker, bundled
// and minified, as one string.
declare const source: string;
export default source;
