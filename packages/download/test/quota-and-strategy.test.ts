import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { download, DownloadQuotaError, memoryStore, type DownloadProgress, type DownloadStore } from '../src/index.ts';
import { startMirrors } from './_range-server.ts';
import { bytesOf, fixture } from './_fixture.ts';
import { assertRecordedIsContent } from './_recorded.ts';

describe('a full store', { timeout: 60_000 }, () => {
  it('rejects with a DownloadQuotaError and records nothing it could not write', async () => {
    const { content, root, outboard } = fixture(1_000_000, 40);
    const mirrors = await startMirrors(content, outboard, [{}]);
    try {
      const store = memoryStore({ maxBytes: 400_000 });
      await assert.rejects(download(mirrors.urls, { root, store, rangeSize: 65536 }), DownloadQuotaError);
      const [info] = await store.list();
      assert.ok(info.recordedBytes <= 400_000, `recorded ${info.recordedBytes}`);
      await assertRecordedIsContent(store, root, content, 4);
    } finally {
      await mirrors.close();
    }
  });
});

describe("the 'fastest' strategy", { timeout: 60_000 }, () => {
  it('gives most ranges to the mirror measured fastest', async () => {
    const { content, root, outboard } = fixture(3_000_000, 41);
    const mirrors = await startMirrors(content, outboard, [{ bytesPerSecond: 400_000 }, {}]);
    try {
      const blob = await download(mirrors.urls, { root, rangeSize: 65536, concurrency: 2 });
      assert.deepEqual(await bytesOf(blob), content);
      const [slow, fast] = mirrors.stats.map((s) => s.contentBytes);
      assert.ok(fast > 4 * slow, `slow ${slow}, fast ${fast}`);
    } finally {
      await mirrors.close();
    }
  });
});

describe('a slow store', { timeout: 60_000 }, () => {
  it('does not count its writes against the source as a stall', async () => {
    const { content, root, outboard } = fixture(400_000, 42);
    const mirrors = await startMirrors(content, outboard, [{}]);
    try {
      const inner = memoryStore();
      const slow: DownloadStore = {
        ...inner,
        async open(r, shape) {
          const stored = await inner.open(r, shape);
          return {
            ...stored,
            recorded: stored.recorded,
            async write(offset, bytes) {
              await new Promise((resolve) => setTimeout(resolve, 150));
              return stored.write(offset, bytes);
            },
          };
        },
      };
      const progress: DownloadProgress[] = [];
      const blob = await download(mirrors.urls, {
        root,
        store: slow,
        stallTimeout: 100,
        onProgress: (p) => progress.push(p),
      });
      assert.deepEqual(await bytesOf(blob), content);
      assert.equal(progress[progress.length - 1].sources[0].faults, 0);
    } finally {
      await mirrors.close();
    }
  });
});

describe('the order of writes and records', { timeout: 60_000 }, () => {
  it('commits a group only after its write finished, through faults and refetches', async () => {
    const { content, root, outboard } = fixture(1_200_000, 43);
    const mirrors = await startMirrors(content, outboard, [
      { rangeFault: (n) => (n % 2 === 1 ? 'flip' : undefined) },
      { rangeFault: (n) => (n % 3 === 0 ? 'truncate' : n % 3 === 1 ? 'reset' : undefined) },
      {},
    ]);
    try {
      const inner = memoryStore();
      const written = new Set<number>();
      let commits = 0;
      const checked: DownloadStore = {
        ...inner,
        async open(r, shape) {
          const stored = await inner.open(r, shape);
          return {
            ...stored,
            recorded: stored.recorded,
            async write(offset, bytes) {
              await new Promise((resolve) => setTimeout(resolve, 1));
              await stored.write(offset, bytes);
              for (let at = offset; at < offset + Math.max(bytes.length, 1); at += 16384) written.add(at / 16384);
            },
            async commit(runs) {
              for (const run of runs)
                for (let g = run.first; g < run.first + run.count; g++)
                  assert.ok(written.has(g), `group ${g} recorded before its bytes were written`);
              commits++;
              return stored.commit(runs);
            },
          };
        },
      };
      const blob = await download(mirrors.urls, { root, store: checked, rangeSize: 65536, concurrency: 4 });
      assert.deepEqual(await bytesOf(blob), content);
      assert.ok(commits > 0);
      await assertRecordedIsContent(inner, root, content, 4);
    } finally {
      await mirrors.close();
    }
  });
});
