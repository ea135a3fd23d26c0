/**
 * What other @blake3-web packages share with this one, so that each rule has one home: the Bao
 * outboard built in bounded memory, a file's bytes at a time (`b3web-publish` writes a file's
 * outboard with it). Reached through the `@blake3-web/upload/_internal` subpath, which is
 * internal: not part of the documented API, not covered by semver. Node only.
 * @module
 */
export { OutboardBuilder } from './_outboard-builder.js';
