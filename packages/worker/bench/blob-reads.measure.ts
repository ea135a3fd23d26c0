/// <reference path="../../../servers/pages/page-globals.d.ts" />
/// <reference path="../../../servers/pages/worker-globals.d.ts" />
// How fast each engine reads an in-memory Blob (64 MiB, BLOB_MIB=n for another size) by slices
// of 256 KiB to 16 MiB, on the page and in a worker, one read at a time and four at a time.
// Decides how big the pool's reads of Blobs should be.
import { expect, test } from '../../../servers/engine-test.ts';

test('blob read throughput by slice size', async ({ enginePage }) => {
  await enginePage.goto(`/servers/pages/worker.html?mib=${process.env.BLOB_MIB ?? 64}`);
  await enginePage.waitForFunction(
    () => globalThis.blake3WebWorker !== undefined || globalThis.blake3WebError !== undefined,
  );
  const r = await enginePage.evaluate(async () => {
    const MiB = 1024 * 1024;
    const total = Number(new URLSearchParams(location.search).get('mib') ?? 64) * MiB;
    const piece = new Uint8Array(16 * MiB).fill(3);
    const blob = new Blob(Array.from({ length: total / piece.length }, () => piece));
    // The same measuring function runs on the page and, as source text, in a worker.
    const measure = async (b: Blob, sizes: number[]) => {
      const out: Record<string, number> = {};
      for (const size of sizes) {
        for (const parallel of [1, 4]) {
          const t0 = performance.now();
          let next = 0;
          const lane = async () => {
            for (let a = (next += size) - size; a < b.size; a = (next += size) - size)
              await b.slice(a, a + size).arrayBuffer();
          };
          await Promise.all(Array.from({ length: parallel }, lane));
          out[`${size / 1024}K x${parallel}`] = Math.round(b.size / 1e6 / ((performance.now() - t0) / 1e3));
        }
      }
      return out;
    };
    const sizes = [256 * 1024, MiB, 4 * MiB, 16 * MiB];
    await measure(blob, [MiB]);
    const page = await measure(blob, sizes);
    const src = `const measure = ${measure.toString()}; onmessage = async (e) => postMessage(await measure(e.data.blob, e.data.sizes));`;
    const w = new Worker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })));
    const inWorker = await new Promise<Record<string, number>>((resolve) => {
      w.onmessage = (e) => resolve(e.data);
      w.postMessage({ blob, sizes });
    });
    w.terminate();
    return { page, inWorker };
  });
  console.log(JSON.stringify({ engine: enginePage.engine, ...r }));
  expect(Object.keys(r.inWorker).length).toBe(8);
});
