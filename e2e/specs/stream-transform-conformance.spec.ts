// Blake3Stream and VerifyStream as TransformStreams in every engine, and BaoVerifyStream beside an
// outboard as an identity pair: the web-platform-tests for identity transforms (testkit's
// identityTransformSuite, also run under Node), writers that reuse their buffer, and keyed
// mismatches that must not disclose the computed tag.
import { abortOutcome, IDENTITY_TRANSFORM_KINDS, identityTransformSuite } from '@blake3-web/testkit';

import type { EnginePage } from '../../servers/engine-page.ts';
import { expect, test } from '../../servers/engine-test.ts';

async function openStreamPage(page: EnginePage): Promise<void> {
  await page.goto('/servers/pages/stream.html');
  await page.waitForFunction(() => globalThis.blake3WebStream !== undefined || globalThis.blake3WebError !== undefined);
  const error = await page.evaluate(() => globalThis.blake3WebError ?? null);
  if (error !== null) throw new Error(`@blake3-web/stream failed to load in ${page.engine}: ${error}`);
}

test.describe('streams as TransformStreams', () => {
  test.beforeEach(async ({ enginePage }) => openStreamPage(enginePage));

  for (const kind of IDENTITY_TRANSFORM_KINDS) {
    test(`identity-transform web-platform-tests: ${kind}`, async ({ enginePage }) => {
      const results = await enginePage.evaluate(
        async ({ source, kind }) => {
          const { core, stream } = globalThis.blake3WebStream!;
          // The suite travels as source text; a compiler may have named functions through `__name`.
          const suite = new Function(`const __name = (f) => f; return (${source})`)() as typeof identityTransformSuite;
          return suite(
            {
              blake3: (d) => core.blake3(d),
              baoEncode: (d, opts) => stream.baoEncode(d, opts),
              Blake3Stream: stream.Blake3Stream,
              VerifyStream: stream.VerifyStream,
              BaoVerifyStream: stream.BaoVerifyStream,
            },
            kind,
          );
        },
        { source: identityTransformSuite.toString(), kind },
      );
      expect(results.length).toBeGreaterThanOrEqual(20);
      expect(results.filter((r) => r.error !== undefined)).toEqual([]);
    });
  }

  test('an abort fails the writes waiting for a read, even if no read comes', async ({ enginePage }) => {
    const r = await enginePage.evaluate(async (source) => {
      const { core, stream } = globalThis.blake3WebStream!;
      const outcome = new Function(`const __name = (f) => f; return (${source})`)() as typeof abortOutcome;
      const out: string[] = [];
      for (const transform of [new stream.Blake3Stream(), new stream.VerifyStream(core.blake3(new Uint8Array(0)))]) {
        const writer = transform.writable.getWriter();
        void writer.write(new Uint8Array(8)).catch(() => {});
        const write = writer.write(new Uint8Array(8));
        await new Promise((resolve) => setTimeout(resolve, 10));
        out.push(String(await outcome(writer, write, new Error('stop'))));
      }
      return out;
    }, abortOutcome.toString());
    expect(r).toEqual(['write rejected,aborted', 'write rejected,aborted']);
  });

  test('a writer that reuses its buffer cannot change what was hashed or verified', async ({ enginePage }) => {
    const r = await enginePage.evaluate(async () => {
      const { core, stream } = globalThis.blake3WebStream!;
      const data = new Uint8Array(50_000).map((_, i) => (i * 13 + 5) % 256);
      const through = async (transform: TransformStream<Uint8Array, Uint8Array>) => {
        const held: Uint8Array[] = [];
        const reading = (async () => {
          const reader = transform.readable.getReader();
          for (;;) {
            const { done, value } = await reader.read();
            if (done) return 'closed';
            held.push(value);
          }
        })().catch((e: Error) => e.name);
        const writer = transform.writable.getWriter();
        const buffer = new Uint8Array(4096);
        for (let at = 0; at < data.length; at += 4096) {
          const n = Math.min(4096, data.length - at);
          buffer.set(data.subarray(at, at + n));
          await writer.write(buffer.subarray(0, n));
          buffer.fill(0xee);
        }
        await writer.close().catch(() => {});
        const ended = await reading;
        const bytes = new Uint8Array(held.reduce((n, c) => n + c.length, 0));
        let at = 0;
        for (const c of held) (bytes.set(c, at), (at += c.length));
        return {
          ended,
          intact: bytes.length === data.length && bytes.every((b, i) => b === data[i]),
          hex: core.bytesToHex(core.blake3(bytes)),
        };
      };
      const hashing = new stream.Blake3Stream();
      const hashed = await through(hashing);
      const verified = await through(new stream.VerifyStream(core.blake3(data)));
      return { hashed, digestOfRead: core.bytesToHex(await hashing.digest), verified };
    });
    expect(r.verified).toMatchObject({ ended: 'closed', intact: true });
    expect(r.hashed).toMatchObject({ ended: 'closed', intact: true });
    expect(r.digestOfRead).toBe(r.hashed.hex);
  });

  test('a keyed mismatch never discloses the tag of the bytes received', async ({ enginePage }) => {
    const r = await enginePage.evaluate(async () => {
      const { core, stream } = globalThis.blake3WebStream!;
      const key = new Uint8Array(32).fill(3);
      const genuine = new Uint8Array(20_000).map((_, i) => i % 251);
      const forged = genuine.slice();
      forged[777] ^= 4;
      const tag = core.bytesToHex(core.blake3(forged, { key }));
      const reader = new Blob([forged])
        .stream()
        .pipeThrough(new stream.VerifyStream(core.blake3(genuine, { key }), { key }))
        .getReader();
      try {
        while (!(await reader.read()).done);
        return { outcome: 'success' };
      } catch (e) {
        const err = e as Error & Record<string, unknown>;
        const exposed = [
          String(err),
          err.message,
          err.stack,
          ...Object.getOwnPropertyNames(err).map((k) => String(err[k])),
        ].join('\n');
        return { outcome: err.name, actual: err.actual, leaks: exposed.includes(tag.slice(0, 16)) };
      }
    });
    expect(r).toEqual({ outcome: 'IntegrityError', actual: '', leaks: false });
  });
});
