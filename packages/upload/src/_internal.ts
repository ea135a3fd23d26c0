/**
 * What other @blake3-web packages reuse from this one: the Bao outboard builder, in memory
 * bounded whatever the content's size (the publishing side of verified downloads writes
 * `FILE.obao` with it). Reached through the `@blake3-web/upload/_internal` subpath, which is
 * internal: not part of the documented API, not covered by semver.
 * @module
 */
export { OutboardBuilder, type OutboardCheckpoint } from './_outboard-builder.js';
