import { baoEncode, BaoVerifyStream, Blake3Stream, IntegrityError, VerifyStream } from '@blake3-web/stream';
import { assertConformance, chunkedStream, officialVectors, Random, readAll, testSeed } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

const rng = new Random(testSeed());
const cases = officialVectors.cases.length;
const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

/** `written` cut at random points through `transform`; what comes out must be `wanted` unless the stream failed. */
async function through(
  transform: TransformStream<Uint8Array, Uint8Array>,
  written: Uint8Array,
  wanted = written,
): Promise<{ ok: boolean; error?: unknown }> {
  const { bytes, error } = await readAll(chunkedStream(rng, written, 3000).pipeThrough(transform));
  if (error !== undefined) return { ok: false, error };
  assert.ok(same(bytes, wanted), `${wanted.length} bytes wanted, ${bytes.length} different bytes out`);
  return { ok: true };
}

/** A verifier's refusal is an IntegrityError; any other error is a failure of the check itself. */
function refused(error: unknown): false {
  if (error instanceof IntegrityError) return false;
  throw error;
}

describe('conformance suite', () => {
  it('Blake3Stream: every mode, output lengths 0, 1, 32 and 131', async () => {
    const report = await assertConformance({
      hash: async (input, { key, context, outputLength }) => {
        const hashing = new Blake3Stream({ key, context, dkLen: outputLength });
        await through(hashing, input);
        return hashing.digest;
      },
    });
    assert.equal(report.planned, cases * 3 * 4);
  });

  it('VerifyStream: accepts the official digests and refuses them with one bit flipped, output lengths 16 (the shortest it accepts), 32 and 131', async () => {
    const report = await assertConformance(
      {
        verify: async (input, { key, context }, expected) => {
          const { ok, error } = await through(new VerifyStream(expected, { key, context }), input);
          return ok || refused(error);
        },
      },
      { outputLengths: [16, 32, 131] },
    );
    assert.equal(report.planned, cases * 3 * 3);
  });

  it('Bao: baoEncode() gives the official hash, and BaoVerifyStream passes its encoding only under that hash', async () => {
    const encoded = await assertConformance(
      { hash: (input) => baoEncode(input).hash },
      { modes: ['hash'], outputLengths: [32] },
    );
    const verified = await assertConformance(
      {
        verify: async (input, _, expected) => {
          const { ok, error } = await through(new BaoVerifyStream(expected), baoEncode(input).encoded, input);
          return ok || refused(error);
        },
      },
      { modes: ['hash'], outputLengths: [32] },
    );
    assert.equal(encoded.planned + verified.planned, 2 * cases);
  });
});
