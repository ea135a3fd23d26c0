export { officialVectors, type OfficialVectors, type OfficialCase } from './vectors.js';
export { paint } from './paint.js';
export { Random, testSeed } from './random.js';
export { oracle, type OracleRequest } from './oracle.js';
