import { assertConformance, officialVectors } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { createPool } from '../src/index-node.ts';
import { sourceWorker } from './_helpers.ts';

it('conformance suite: pool.hashBlob() in every mode, output lengths 0, 1, 32 and 131', async () => {
  // 1 KiB subtrees: the inputs above the inline limit are spread over both workers, chunk by chunk.
  const pool = createPool({ size: 2, subtreeBytes: 1024, createWorker: sourceWorker });
  after(() => pool.terminate());
  const report = await assertConformance({
    hash: (input, { key, context, outputLength }) =>
      pool.hashBlob(new Blob([input]), { key, context, dkLen: outputLength }),
  });
  assert.equal(report.planned, officialVectors.cases.length * 3 * 4);
});
