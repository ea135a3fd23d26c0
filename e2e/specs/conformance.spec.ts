// The testkit's conformance suite (the official vectors in every mode, output lengths 0, 1, 32
// and 131) run inside the page in every engine, over the built packages: the core per backend,
// the worker pool's hashBlob, Blake3Stream, VerifyStream and Bao encode + verify.
import { conformanceSuite, officialVectors, type ConformanceReport } from '@blake3-web/testkit';

import { BACKENDS, openCorePageFor } from '../fixtures/backends.ts';
import type { EnginePage } from '../../servers/engine-page.ts';
import { expect, test } from '../../servers/engine-test.ts';

// The suite travels as source text; a compiler may have named functions through `__name`.
const suite = { source: conformanceSuite.toString(), vectors: officialVectors };
const cases = officialVectors.cases.length;

async function openPage(page: EnginePage, path: string, global: 'blake3WebWorker' | 'blake3WebStream'): Promise<void> {
  await page.goto(path);
  await page.waitForFunction(
    global === 'blake3WebWorker'
      ? () => globalThis.blake3WebWorker !== undefined || globalThis.blake3WebError !== undefined
      : () => globalThis.blake3WebStream !== undefined || globalThis.blake3WebError !== undefined,
  );
  const error = await page.evaluate(() => globalThis.blake3WebError ?? null);
  if (error !== null) throw new Error(`${path} failed to load in ${page.engine}: ${error}`);
}

/** Every check passed, and as many ran as were planned. */
function expectConformance(report: ConformanceReport, planned: number): void {
  expect(report.failures).toEqual([]);
  expect(report.planned).toBe(planned);
  expect(report.passed).toBe(planned);
}

test.describe('conformance suite in the page', () => {
  for (const backend of BACKENDS) {
    test(`core, ${backend} backend: one-shot blake3()`, async ({ enginePage }) => {
      await openCorePageFor(enginePage, backend);
      const { used, report } = await enginePage.evaluate(
        async ({ source, vectors, backend }) => {
          const { core } = globalThis.blake3Web!;
          const run = new Function(`const __name = (f) => f; return (${source})`)() as typeof conformanceSuite;
          core.setBackend(backend);
          const report = await run(vectors, {
            hash: (input, { key, context, outputLength }) => core.blake3(input, { key, context, dkLen: outputLength }),
          });
          return { used: core.backend(), report };
        },
        { ...suite, backend },
      );
      expect(used).toBe(backend);
      expectConformance(report, cases * 3 * 4);
    });
  }

  test('worker: pool.hashBlob() over two workers', async ({ enginePage }) => {
    await openPage(enginePage, '/servers/pages/worker.html', 'blake3WebWorker');
    const report = await enginePage.evaluate(async ({ source, vectors }) => {
      const { worker } = globalThis.blake3WebWorker!;
      const run = new Function(`const __name = (f) => f; return (${source})`)() as typeof conformanceSuite;
      // 1 KiB subtrees: the inputs above the inline limit are spread over both workers.
      const pool = worker.createPool({ size: 2, subtreeBytes: 1024 });
      try {
        return await run(vectors, {
          hash: (input, { key, context, outputLength }) =>
            pool.hashBlob(new Blob([input]), { key, context, dkLen: outputLength }),
        });
      } finally {
        pool.terminate();
      }
    }, suite);
    expectConformance(report, cases * 3 * 4);
  });

  test('stream: Blake3Stream, VerifyStream, Bao encode + verify', async ({ enginePage }) => {
    await openPage(enginePage, '/servers/pages/stream.html', 'blake3WebStream');
    const reports = await enginePage.evaluate(async ({ source, vectors }) => {
      const { stream } = globalThis.blake3WebStream!;
      const run = new Function(`const __name = (f) => f; return (${source})`)() as typeof conformanceSuite;
      /** Writes `written` in pieces of 1000 bytes; true if `wanted` came out, false if the stream failed with an IntegrityError. */
      const through = async (
        transform: TransformStream<Uint8Array, Uint8Array>,
        written: Uint8Array,
        wanted = written,
      ) => {
        const writer = transform.writable.getWriter();
        const writing = (async () => {
          for (let at = 0; at < written.length; at += 1000) await writer.write(written.slice(at, at + 1000));
          await writer.close();
        })().catch(() => {});
        const reader = transform.readable.getReader();
        const parts: Uint8Array[] = [];
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            parts.push(value);
          }
        } catch (e) {
          if ((e as Error).name === 'IntegrityError') return false;
          throw e;
        } finally {
          await writing;
        }
        const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
        parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
        if (out.length !== wanted.length || out.some((b, i) => b !== wanted[i]))
          throw new Error('the stream passed on other bytes');
        return true;
      };
      const hashing = await run(vectors, {
        hash: async (input, { key, context, outputLength }) => {
          const t = new stream.Blake3Stream({ key, context, dkLen: outputLength });
          await through(t, input);
          return t.digest;
        },
      });
      const verifying = await run(
        vectors,
        {
          verify: (input, { key, context }, expected) =>
            through(new stream.VerifyStream(expected, { key, context }), input),
        },
        { outputLengths: [16, 32, 131] },
      );
      const baoOptions = { modes: ['hash' as const], outputLengths: [32] };
      const baoHash = await run(vectors, { hash: (input) => stream.baoEncode(input).hash }, baoOptions);
      const baoVerify = await run(
        vectors,
        {
          verify: (input, _, expected) =>
            through(new stream.BaoVerifyStream(expected), stream.baoEncode(input).encoded, input),
        },
        baoOptions,
      );
      return { hashing, verifying, baoHash, baoVerify };
    }, suite);
    expectConformance(reports.hashing, cases * 3 * 4);
    expectConformance(reports.verifying, cases * 3 * 3);
    expectConformance(reports.baoHash, cases);
    expectConformance(reports.baoVerify, cases);
  });
});
