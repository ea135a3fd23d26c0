import { blake3 } from '@blake3-web/core';
import { baoEncode, BaoVerifyStream, Blake3Stream, VerifyStream } from '@blake3-web/stream';
import { IDENTITY_TRANSFORM_KINDS, identityTransformSuite } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

describe('the web-platform-tests for identity transforms', () => {
  for (const kind of IDENTITY_TRANSFORM_KINDS) {
    it(`pass for ${kind}`, async () => {
      const results = await identityTransformSuite(
        { blake3, baoEncode, Blake3Stream, VerifyStream, BaoVerifyStream },
        kind,
      );
      assert.ok(results.length >= 20, `ran ${results.length} checks`);
      assert.deepEqual(
        results.filter((r) => r.error !== undefined),
        [],
      );
    });
  }
});
