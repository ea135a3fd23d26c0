// @blake3-web/stream in every engine: WebKit has no async iteration of ReadableStream, no BYOB
// readers and no ReadableStream.from, so these specs exercise the plain reader loops too.
import type { EnginePage } from '../../servers/engine-page.ts';
import { expect, test } from '../../servers/engine-test.ts';

async function openStreamPage(page: EnginePage): Promise<void> {
  await page.goto('/servers/pages/stream.html');
  await page.waitForFunction(() => globalThis.blake3WebStream !== undefined || globalThis.blake3WebError !== undefined);
  const error = await page.evaluate(() => globalThis.blake3WebError ?? null);
  if (error !== null) throw new Error(`@blake3-web/stream failed to load in ${page.engine}: ${error}`);
}

test.describe('streams', () => {
  test.beforeEach(async ({ enginePage }) => openStreamPage(enginePage));

  test('Blake3Stream: random chunkings, odd offsets and empty chunks pass through and give blake3()', async ({
    enginePage,
  }) => {
    const results = await enginePage.evaluate(async (seed) => {
      const { core, stream } = globalThis.blake3WebStream!;
      let s = seed >>> 0;
      const rand = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
      const out = [];
      for (let i = 0; i < 12; i++) {
        const len = [0, 1, 1024, 4097, 70_000, 1_000_003][i % 6];
        const data = new Uint8Array(len);
        for (let j = 0; j < len; j++) data[j] = (j * 31 + i) % 256;
        const chunks: Uint8Array[] = [];
        for (let p = 0; p < len || chunks.length === 0;) {
          const n = Math.floor(rand() * (i % 2 ? 300 : 70_000));
          const pad = Math.floor(rand() * 4);
          const buf = new Uint8Array(n + pad);
          const piece = data.subarray(p, p + n);
          buf.set(piece, pad);
          chunks.push(buf.subarray(pad, pad + piece.length));
          p += n;
          if (len === 0) break;
        }
        const opts =
          i % 3 === 1 ? { key: new Uint8Array(32).fill(i) } : i % 3 === 2 ? { context: 'e2e streams', dkLen: 77 } : {};
        const hashing = new stream.Blake3Stream(opts);
        let k = 0;
        const source = new ReadableStream<Uint8Array>({
          pull: (c) => (k < chunks.length ? c.enqueue(chunks[k++]) : c.close()),
        });
        const reader = source.pipeThrough(hashing).getReader();
        let passed = 0;
        let same = true;
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          for (let j = 0; j < value.length; j++) same &&= value[j] === data[passed + j];
          passed += value.length;
        }
        const digest = core.bytesToHex(await hashing.digest);
        out.push({ len, passed, same, ok: digest === core.bytesToHex(core.blake3(data, opts)) });
      }
      return out;
    }, 12345);
    expect(results).toHaveLength(12);
    for (const r of results) expect(r).toEqual({ len: r.len, passed: r.len, same: true, ok: true });
  });

  test('VerifyStream: good content passes; a tampered byte, a truncated body and a source error fail correctly', async ({
    enginePage,
  }) => {
    const r = await enginePage.evaluate(async () => {
      const { core, stream } = globalThis.blake3WebStream!;
      const data = new Uint8Array(300_000).map((_, i) => (i * 7) % 256);
      const hex = core.bytesToHex(core.blake3(data));
      const from = (bytes: Uint8Array) => new Blob([bytes as Uint8Array<ArrayBuffer>]).stream();
      // A reader loop sees the stream's own error; Response methods would replace it with a TypeError.
      const outcome = async (body: ReadableStream<Uint8Array>) => {
        const reader = body.pipeThrough(new stream.VerifyStream(hex)).getReader();
        let length = 0;
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) return { ok: true, length };
            length += value.length;
          }
        } catch (e) {
          const err = e as InstanceType<typeof stream.IntegrityError>;
          return {
            ok: false,
            name: err.name,
            code: err.code ?? null,
            expected: err.expected ?? null,
            message: err.message,
          };
        }
      };
      const tamperedBytes = data.slice();
      tamperedBytes[123_456] ^= 1;
      const failing = new ReadableStream<Uint8Array>({
        start: (c) => {
          c.enqueue(data.subarray(0, 1000));
          c.error(new Error('network down'));
        },
      });
      // pipeTo: the sink sees the error and the returned promise rejects.
      let sinkSaw = '';
      const piped = await from(tamperedBytes)
        .pipeThrough(new stream.VerifyStream(hex))
        .pipeTo(new WritableStream({ abort: (reason) => void (sinkSaw = (reason as Error).name) }))
        .then(
          () => 'resolved',
          (e: Error) => e.name,
        );
      return {
        hex,
        good: await outcome(from(data)),
        tampered: await outcome(from(tamperedBytes)),
        truncated: await outcome(from(data.subarray(0, 299_999))),
        failing: await outcome(failing),
        piped,
        sinkSaw,
        hashed: core.bytesToHex(await stream.hashStream(from(data))),
      };
    });
    expect(r.good).toEqual({ ok: true, length: 300_000 });
    expect(r.tampered).toMatchObject({
      ok: false,
      name: 'IntegrityError',
      code: 'ERR_BLAKE3_MISMATCH',
      expected: r.hex,
    });
    expect(r.truncated).toMatchObject({ ok: false, name: 'IntegrityError' });
    expect(r.failing).toMatchObject({ ok: false, message: 'network down' });
    expect(r.piped).toBe('IntegrityError');
    expect(r.sinkSaw).toBe('IntegrityError');
    expect(r.hashed).toBe(r.hex);
  });

  test('verifyResponse: every body method and a clone reject a mismatch with the IntegrityError; good bodies parse', async ({
    enginePage,
  }) => {
    const r = await enginePage.evaluate(async () => {
      const { core, stream } = globalThis.blake3WebStream!;
      const json = new TextEncoder().encode(JSON.stringify({ list: Array.from({ length: 20_000 }, (_, i) => i) }));
      const hex = core.bytesToHex(core.blake3(json));
      const tampered = json.slice();
      tampered[50_000] = 0x39 - (tampered[50_000] === 0x39 ? 1 : 0);
      // Delivered in pieces, as a network body is, so the mismatch is found after reads began.
      const body = (bytes: Uint8Array) =>
        new ReadableStream<Uint8Array>({
          start(c) {
            for (let at = 0; at < bytes.length; at += 8192) c.enqueue(bytes.slice(at, at + 8192));
            c.close();
          },
        });
      const checked = (bytes: Uint8Array) =>
        stream.verifyResponse(new Response(body(bytes), { headers: { 'content-type': 'application/json' } }), hex);
      const rejected: Record<string, string> = {};
      for (const method of ['arrayBuffer', 'text', 'json', 'blob', 'bytes'] as const) {
        for (const [label, res] of [
          [method, checked(tampered)],
          [`clone().${method}`, checked(tampered).clone()],
        ] as const) {
          rejected[label] = await res[method]().then(
            () => 'resolved',
            (e: Error) => `${e.name} ${(e as InstanceType<typeof stream.IntegrityError>).code ?? ''}`.trim(),
          );
        }
      }
      const good = checked(json);
      const copy = good.clone();
      const parsed = (await good.json()) as { list: number[] };
      const text = await copy.text();
      const blob = await checked(json).blob();
      return {
        rejected,
        parsed: parsed.list.length === 20_000 && parsed.list[19_999] === 19_999,
        text: text.length === json.length,
        blob: { type: blob.type, size: blob.size, expected: json.length },
        used: await good.text().then(
          () => 'resolved',
          (e: Error) => e.name,
        ),
      };
    });
    for (const [label, outcome] of Object.entries(r.rejected))
      expect(outcome, `${label}()`).toBe('IntegrityError ERR_BLAKE3_MISMATCH');
    expect(Object.keys(r.rejected)).toHaveLength(10);
    expect(r.parsed).toBe(true);
    expect(r.text).toBe(true);
    expect(r.blob).toEqual({ type: 'application/json', size: r.blob.expected, expected: r.blob.expected });
    expect(r.used).toBe('TypeError');
  });

  test('aborts, cancels and non-byte chunks reject the digest; backpressure holds', async ({ enginePage }) => {
    const r = await enginePage.evaluate(async () => {
      const { stream } = globalThis.blake3WebStream!;
      const settle = (p: Promise<unknown>) =>
        p.then(
          () => 'resolved',
          (e: Error) => `${e.name}: ${e.message}`,
        );
      const aborted = new stream.Blake3Stream();
      await aborted.writable.getWriter().abort(new Error('gone'));
      const cancelled = new stream.Blake3Stream();
      await cancelled.readable.cancel(new Error('left'));
      const bad = new stream.Blake3Stream();
      void bad.readable
        .getReader()
        .read()
        .catch(() => {});
      const write = await settle(bad.writable.getWriter().write('text' as never));
      let pulled = 0;
      const source = new ReadableStream<Uint8Array>(
        {
          pull: (c) => {
            pulled++;
            c.enqueue(new Uint8Array(1024));
          },
        },
        { highWaterMark: 0 },
      );
      const reader = source.pipeThrough(new stream.Blake3Stream()).getReader();
      await reader.read();
      await new Promise((res) => setTimeout(res, 100));
      const pulledAfterOneRead = pulled;
      await reader.cancel();
      return {
        aborted: await settle(aborted.digest),
        cancelled: await settle(cancelled.digest),
        write,
        badDigest: await settle(bad.digest),
        pulledAfterOneRead,
      };
    });
    expect(r.aborted).toBe('Error: gone');
    expect(r.cancelled).toBe('Error: left');
    expect(r.write).toMatch(/^TypeError: stream chunks must be Uint8Arrays/);
    expect(r.badDigest).toMatch(/^TypeError/);
    expect(r.pulledAfterOneRead).toBeLessThanOrEqual(4);
  });
});
