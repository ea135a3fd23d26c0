/**
 * What other @blake3-web packages share with this one, so that each rule has one home: how a
 * worker shipped in a package starts whatever bundled the page, how a worker that stopped
 * answering is noticed, and how a file read that stalled fails. Reached through the `@blake3-web/worker/_internal` subpath, which is
 * internal: not part of the documented API, not covered by semver.
 * @module
 */
export { StartingWorker, WorkerStartup, type WorkerStartSpec } from './_start-worker.js';
export { WorkerDiedError, WorkerStartError } from './_errors.js';
export { LivenessProbe } from './_liveness.js';
export { readOrStall, STALL_MS } from './_read-or-stall.js';
