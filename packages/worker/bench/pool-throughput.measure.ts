/// <reference path="../../../servers/pages/page-globals.d.ts" />
/// <reference path="../../../servers/pages/worker-globals.d.ts" />
// Pool throughput in each engine on a 64 MiB in-memory Blob: pools of 1, 2 and 4 against one
// thread reading 16 MiB slices into blake3.create(), and subtree sizes 1-16 MiB on a pool of 2.
// Rounds interleaved, medians. (Chromium 156 here fails most reads of in-memory Blobs of 128 MiB
// and more with NotReadableError, pool or not: big-file.measure.ts measures real files.)
import { expect, test } from '../../../servers/engine-test.ts';

test('pool throughput', async ({ enginePage }) => {
  await enginePage.goto('/servers/pages/worker.html');
  await enginePage.waitForFunction(
    () => globalThis.blake3WebWorker !== undefined || globalThis.blake3WebError !== undefined,
  );
  const r = await enginePage.evaluate(async () => {
    const { core, worker } = globalThis.blake3WebWorker!;
    const MiB = 1024 * 1024;
    const total = 64 * MiB;
    const piece = new Uint8Array(16 * MiB);
    for (let i = 0; i < piece.length; i++) piece[i] = (i * 31 + (i >>> 11)) % 251;
    const blob = new Blob(Array.from({ length: total / piece.length }, () => piece));
    await core.ready();
    const configs: { label: string; run: () => Promise<Uint8Array> }[] = [
      {
        label: 'one thread, 16 MiB reads',
        run: async () => {
          const h = core.blake3.create();
          for (let a = 0; a < total; a += 16 * MiB)
            h.update(new Uint8Array(await blob.slice(a, a + 16 * MiB).arrayBuffer()));
          return h.digest();
        },
      },
    ];
    const pools: ReturnType<typeof worker.createPool>[] = [];
    const addPool = (label: string, opts: Parameters<typeof worker.createPool>[0]) => {
      const pool = worker.createPool(opts);
      pools.push(pool);
      configs.push({ label, run: () => pool.hashBlob(blob) });
    };
    for (const size of [1, 2, 4]) addPool(`pool of ${size}, default subtrees`, { size });
    for (const s of [1, 4, 16]) addPool(`pool of 2, ${s} MiB subtrees`, { size: 2, subtreeBytes: s * MiB });
    // Warm up: start workers, compile the kernels.
    for (const c of configs) await c.run();
    const times = new Map<string, number[]>();
    const hashes = new Set<string>();
    for (let round = 0; round < 5; round++) {
      for (const c of configs) {
        const t0 = performance.now();
        hashes.add(core.bytesToHex(await c.run()));
        times.set(c.label, [...(times.get(c.label) ?? []), performance.now() - t0]);
      }
    }
    for (const p of pools) p.terminate();
    const rows = [...times].map(([label, ts]) => {
      const ms = [...ts].sort((a, b) => a - b)[2];
      return { label, ms: Math.round(ms), mbps: Math.round(total / 1e6 / (ms / 1e3)) };
    });
    return {
      hardwareConcurrency: navigator.hardwareConcurrency,
      backend: core.backend(),
      userAgent: navigator.userAgent,
      sameHash: hashes.size === 1,
      rows,
    };
  });
  console.log(JSON.stringify({ engine: enginePage.engine, date: new Date().toISOString(), ...r }));
  expect(r.sameHash).toBe(true);
});
