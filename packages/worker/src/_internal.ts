/**
 * What other @blake3-web packages share with this one, so that each rule has one home: how a
 * worker shipped in a package starts whatever bundled the page, how calls to a worker are made,
 * watched and ended (WorkerHandle: pending calls, liveness, a start deadline, termination) and
 * how errors cross it whole (sendErrorsWhole on the worker side, KnownErrors on the calling side),
 * and how a file read that stalled fails. Reached through the `@blake3-web/worker/_internal`
 * subpath, which is internal: not part of the documented API, not covered by semver.
 * @module
 */
export { StartingWorker, WorkerStartup, type WorkerStartSpec } from './_start-worker.js';
export { WorkerDiedError, WorkerStartError, sendErrorsWhole, type KnownErrors } from './_errors.js';
export { WorkerHandle, type Pingable, type WorkerHandleOpts } from './_worker-handle.js';
export { webWorkerPort, type WebWorkerLike } from './_web-worker-port.js';
export { LivenessProbe } from './_liveness.js';
export { readOrStall, STALL_MS } from './_read-or-stall.js';
