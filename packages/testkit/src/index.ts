export { officialVectors, type OfficialVectors, type OfficialCase } from './vectors.ts';
export { paint } from './paint.ts';
export { Random, testSeed } from './random.ts';
export { oracle, type OracleRequest } from './oracle.ts';
export { chunkedStream } from './chunked-stream.ts';
export { readAll } from './read-all.ts';
export { abortOutcome } from './abort-outcome.ts';
export { provideErrorEvent } from './error-event.ts';
export {
  IDENTITY_TRANSFORM_KINDS,
  identityTransformSuite,
  type IdentityTransformKind,
  type IdentityTransformLibs,
  type IdentityTransformResult,
} from './identity-transform-suite.ts';
export {
  conformanceSuite,
  type ConformanceDigest,
  type ConformanceMode,
  type ConformanceOptions,
  type ConformanceReport,
  type ConformanceRequest,
  type ConformanceTarget,
  type ConformanceVectors,
} from './conformance-suite.ts';
export { assertConformance } from './conformance.ts';
