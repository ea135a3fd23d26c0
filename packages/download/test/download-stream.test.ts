import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { readAll } from '@blake3-web/testkit';
import { downloadStream, DownloadError, memoryStore, download } from '../src/index.ts';
import { startMirrors } from './_range-server.ts';
import { fixture } from './_fixture.ts';

describe('downloadStream', { timeout: 120_000 }, () => {
  for (const size of [0, 1000, 16384, 1_500_000]) {
    it(`streams ${size} verified bytes in order from faulty and honest mirrors`, async () => {
      const { content, root, outboard } = fixture(size, 20 + size);
      const mirrors = await startMirrors(content, outboard, [
        { rangeFault: (n) => (n % 2 === 0 ? 'flip' : undefined) },
        { rangeFault: (n) => (n % 3 === 1 ? 'truncate' : undefined) },
        {},
      ]);
      try {
        const stream = downloadStream(mirrors.urls, { root, rangeSize: 65536, concurrency: 3 });
        const { bytes, error } = await readAll(stream);
        assert.equal(error, undefined);
        assert.deepEqual(bytes, content);
      } finally {
        await mirrors.close();
      }
    });
  }

  it('runs only a few ranges ahead of its reader', async () => {
    const { content, root, outboard } = fixture(4_000_000, 21);
    const mirrors = await startMirrors(content, outboard, [{}]);
    try {
      const stream = downloadStream(mirrors.urls, { root, rangeSize: 65536, concurrency: 2 });
      const reader = stream.getReader();
      const first = await reader.read();
      assert.ok(!first.done && first.value.length > 0);
      await new Promise((r) => setTimeout(r, 300));
      // 2 in flight x 2 ranges ahead x 64 KiB, plus the final group and the first range.
      assert.ok(mirrors.stats[0].contentBytes <= 6 * 65536, `fetched ${mirrors.stats[0].contentBytes}`);
      await reader.cancel();
    } finally {
      await mirrors.close();
    }
  });

  it('errors with a DownloadError when no mirror is honest', async () => {
    const { content, root, outboard } = fixture(200_000, 22);
    const mirrors = await startMirrors(content, outboard, [{ rangeFault: () => 'flip' }]);
    try {
      const { bytes, error } = await readAll(downloadStream(mirrors.urls, { root }));
      assert.ok(error instanceof DownloadError, String(error));
      assert.equal(bytes.length, 0);
    } finally {
      await mirrors.close();
    }
  });

  it('reads back the groups a store held, and stores the rest', async () => {
    const { content, root, outboard } = fixture(1_000_000, 23);
    const store = memoryStore();
    const mirrors = await startMirrors(content, outboard, [{ bytesPerSecond: 1_000_000 }]);
    const controller = new AbortController();
    await assert.rejects(
      download(mirrors.urls, {
        root,
        store,
        rangeSize: 65536,
        signal: controller.signal,
        onProgress: (p) => p.verifiedBytes > 300_000 && controller.abort(new Error('stop')),
      }),
      /stop/,
    );
    await mirrors.close();
    const [before] = await store.list();
    const again = await startMirrors(content, outboard, [{}]);
    try {
      const { bytes, error } = await readAll(downloadStream(again.urls, { root, store, rangeSize: 65536 }));
      assert.equal(error, undefined);
      assert.deepEqual(bytes, content);
      assert.equal(again.stats[0].contentBytes, content.length - before.recordedBytes);
      const [after] = await store.list();
      assert.equal(after.complete, true);
    } finally {
      await again.close();
    }
  });
});
