import vectors from '../vectors/blake3-official.json' with { type: 'json' };

export type OfficialCase = { input_len: number; hash: string; keyed_hash: string; derive_key: string };
export type OfficialVectors = { key: string; context_string: string; cases: OfficialCase[] };

/** The official BLAKE3 test vectors (test_vectors.json from the reference repository, verbatim). */
export const officialVectors: OfficialVectors = vectors;
