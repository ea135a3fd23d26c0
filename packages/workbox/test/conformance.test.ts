import { bytesToHex } from '@blake3-web/core';
import { Blake3IntegrityPlugin, hashFromHeader } from '@blake3-web/workbox';
import { assertConformance, officialVectors } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

type PluginEvent = Parameters<NonNullable<Blake3IntegrityPlugin['fetchDidSucceed']>>[0]['event'];
const event = {} as PluginEvent;

/** The plugin's verdict on a body under an expected digest: used (true) or refused (false). */
async function passes(
  verify: 'before-use' | 'streaming',
  body: Uint8Array<ArrayBuffer>,
  expected: Uint8Array,
): Promise<boolean> {
  // The digest travels in a header: a URL path names only 32-byte digests.
  const plugin = new Blake3IntegrityPlugin({ verify, expectedHash: hashFromHeader('x-blake3') });
  const request = new Request('https://example.com/asset');
  const response = new Response(body, { headers: { 'x-blake3': bytesToHex(expected) } });
  const used = (await plugin.fetchDidSucceed!({ request, response, event }))!;
  if (used.type === 'error') return false;
  // A body the page may use must also be one the cache keeps, and a refused one must not be kept.
  const cached = await plugin.cacheWillUpdate!({ request, response: used.clone(), event });
  const read = await used.arrayBuffer().then(
    (b) => new Uint8Array(b),
    (e: Error) => e,
  );
  if (read instanceof Error) {
    assert.equal(read.name, 'IntegrityError');
    assert.equal(cached, null);
    return false;
  }
  assert.deepEqual(read, body);
  assert.notEqual(cached, null);
  return true;
}

// The plugin checks plain hashes of 16 bytes or more (shorter digests are refused as no check).
for (const verify of ['before-use', 'streaming'] as const) {
  describe(`conformance suite, verify: '${verify}'`, () => {
    it('Blake3IntegrityPlugin uses and caches bodies under their official digest, of 32 and 131 bytes, and refuses them with one bit flipped', async () => {
      const report = await assertConformance(
        { verify: (input, _, expected) => passes(verify, input, expected) },
        { modes: ['hash'], outputLengths: [32, 131] },
      );
      assert.equal(report.planned, officialVectors.cases.length * 2);
    });
  });
}
