import { constantTimeEqual } from '@blake3-web/core';
import { Random, testSeed } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { it } from 'node:test';

it('constantTimeEqual: equal bytes only, a difference anywhere, lengths, any view', () => {
  const rng = new Random(testSeed());
  const a = rng.bytes(64);
  assert.equal(constantTimeEqual(a, a.slice()), true);
  assert.equal(constantTimeEqual(new Uint8Array(0), new Uint8Array(0)), true);
  for (const i of [0, 31, 63]) {
    const b = a.slice();
    b[i] ^= 1 << rng.int(0, 7);
    assert.equal(constantTimeEqual(a, b), false, `byte ${i}`);
  }
  assert.equal(constantTimeEqual(a, a.subarray(0, 63)), false);
  assert.equal(constantTimeEqual(a.subarray(0, 0), a.subarray(0, 1)), false);
  assert.equal(constantTimeEqual(a.subarray(8, 40), Buffer.from(a.subarray(8, 40))), true);
  assert.throws(() => constantTimeEqual('ab' as never, a), {
    name: 'TypeError',
    message: /a must be a Uint8Array, got a string/,
  });
  assert.throws(() => constantTimeEqual(a, null as never), {
    name: 'TypeError',
    message: /b must be a Uint8Array, got null/,
  });
});
