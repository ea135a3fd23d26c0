// Seeded fuzzing of the verifiers: random content, chunk boundaries, writers that reuse their
// buffer, and mutations of the body, the digest and the key. The invariant: no byte that was not
// verified is delivered as success, every failure is an IntegrityError, and nothing hangs.
import { blake3 } from '@blake3-web/core';
import { baoEncode, BaoVerifyStream, IntegrityError, VerifyStream } from '@blake3-web/stream';
import { Random, testSeed } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

const seed = testSeed();
const rng = new Random(seed);
const equal = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

type Outcome = { bytes: Uint8Array; error?: unknown };

/**
 * Writes `data` into `transform` in random pieces (through one reused buffer or fresh views)
 * while reading it; settles when the readable side ends, or fails the test after 5 s.
 */
async function deliver(transform: TransformStream<Uint8Array, Uint8Array>, data: Uint8Array): Promise<Outcome> {
  const reuse = rng.int(0, 1) === 1;
  const maxPiece = rng.pick([1, 100, 1024, 5000, 70_000]);
  const held: Uint8Array[] = [];
  const reading = (async (): Promise<Outcome> => {
    const reader = transform.readable.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return { bytes: concat(held) };
        held.push(value);
      }
    } catch (error) {
      return { bytes: concat(held), error };
    }
  })();
  const writing = (async () => {
    const writer = transform.writable.getWriter();
    const buffer = new Uint8Array(maxPiece);
    for (let at = 0; at < data.length;) {
      const n = Math.min(rng.int(1, maxPiece), data.length - at);
      let piece = data.subarray(at, at + n);
      if (reuse) (buffer.set(piece), (piece = buffer.subarray(0, n)));
      await writer.write(piece);
      if (reuse) buffer.fill(0xa5);
      at += n;
    }
    await writer.close();
  })().catch(() => {});
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`hang (seed ${seed})`)), 5000)),
  );
  try {
    const outcome = await Promise.race([reading, hang]);
    await Promise.race([writing, hang]);
    return outcome;
  } finally {
    clearTimeout(timer);
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) (out.set(p, at), (at += p.length));
  return out;
}

/** `data` with one random mutation, or (half the time) unchanged; the name says which. */
function mutate(data: Uint8Array): { name: string; bytes: Uint8Array } {
  const kind = rng.int(0, 1) === 0 ? 'none' : rng.pick(['flip', 'truncate', 'extend', 'swap', 'drop'] as const);
  if (kind === 'none') return { name: kind, bytes: data };
  if (kind === 'extend') return { name: kind, bytes: concat([data, rng.bytes(rng.int(1, 2000))]) };
  if (data.length === 0) return { name: 'extend', bytes: Uint8Array.of(rng.int(0, 255)) };
  const bytes = data.slice();
  const i = rng.int(0, data.length - 1);
  if (kind === 'flip') bytes[i] ^= 1 << rng.int(0, 7);
  if (kind === 'truncate') return { name: kind, bytes: data.slice(0, rng.int(0, data.length - 1)) };
  if (kind === 'drop')
    return {
      name: kind,
      bytes: concat([data.subarray(0, i), data.subarray(Math.min(data.length, i + rng.int(1, 100)))]),
    };
  if (kind === 'swap') {
    const j = rng.int(0, data.length - 1);
    [bytes[i], bytes[j]] = [bytes[j], bytes[i]];
  }
  return { name: kind, bytes };
}

describe(`verifier fuzzing (seed ${seed})`, () => {
  it('VerifyStream: success only for the exact content, digest and key; otherwise an IntegrityError', async () => {
    const counts = { passed: 0, failed: 0 };
    for (let round = 0; round < 150; round++) {
      const content = rng.bytes(rng.pick([0, 1, 1023, 1024, 1025, rng.int(0, 40_000)]));
      const key = rng.int(0, 2) === 0 ? rng.bytes(32) : undefined;
      const dkLen = rng.pick([16, 32, 33, 64]);
      const digest = blake3(content, { key, dkLen });
      const body = mutate(content);
      // The verifier's digest and key: the right ones, or one of them changed.
      const change = rng.pick(['none', 'none', 'digest', 'key', 'unkeyed'] as const);
      let want = digest;
      let verifyKey = key;
      if (change === 'digest') (want = digest.slice())[rng.int(0, dkLen - 1)] ^= 1 << rng.int(0, 7);
      if (change === 'key') verifyKey = key ? key.map((b, i) => (i === 0 ? b ^ 1 : b)) : rng.bytes(32);
      if (change === 'unkeyed') verifyKey = undefined;
      const genuine = equal(body.bytes, content) && equal(want, digest) && verifyKey === key;
      const what = `round ${round}: ${content.length} bytes, body ${body.name}, ${change} changed, ${key ? 'keyed' : 'unkeyed'}`;

      const { bytes, error } = await deliver(
        new VerifyStream(want, verifyKey ? { key: verifyKey } : undefined),
        body.bytes,
      );
      if (genuine) {
        assert.equal(error, undefined, what);
        assert.ok(equal(bytes, content), `${what}: the content must arrive intact`);
        counts.passed++;
      } else {
        assert.ok(
          error instanceof IntegrityError,
          `${what}: must end in an IntegrityError, got ${error === undefined ? 'success' : String(error)}`,
        );
        if (verifyKey) assert.equal(error.actual, '', `${what}: a keyed mismatch discloses no tag`);
        counts.failed++;
      }
    }
    assert.ok(counts.passed > 10 && counts.failed > 50, `both outcomes exercised: ${JSON.stringify(counts)}`);
  });

  it('BaoVerifyStream: only verified content is released, every mutation ends in an IntegrityError', async () => {
    const counts = { passed: 0, failed: 0 };
    for (let round = 0; round < 80; round++) {
      const content = rng.bytes(rng.pick([0, 1, 1024, 1025, 2048, 4097, rng.int(0, 40_000)]));
      const { hash, encoded } = baoEncode(content);
      const body = mutate(encoded);
      const wrongHash = rng.int(0, 5) === 0;
      const want = hash.slice();
      if (wrongHash) want[rng.int(0, 31)] ^= 0x10;
      const genuine = equal(body.bytes, encoded) && equal(want, hash);
      const what = `round ${round}: ${content.length} bytes, encoding ${body.name}${wrongHash ? ', wrong hash' : ''}`;

      const { bytes, error } = await deliver(new BaoVerifyStream(want), body.bytes);
      assert.ok(
        equal(bytes, content.subarray(0, bytes.length)),
        `${what}: what was released must be a prefix of the content`,
      );
      if (genuine) {
        assert.equal(error, undefined, what);
        assert.equal(bytes.length, content.length, `${what}: all of the content`);
        counts.passed++;
      } else {
        assert.ok(
          error instanceof IntegrityError,
          `${what}: must end in an IntegrityError, got ${error === undefined ? 'success' : String(error)}`,
        );
        counts.failed++;
      }
    }
    assert.ok(counts.passed > 5 && counts.failed > 30, `both outcomes exercised: ${JSON.stringify(counts)}`);
  });
});
