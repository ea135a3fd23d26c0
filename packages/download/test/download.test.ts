import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { download, DownloadError, memoryStore, type DownloadProgress, type GroupEvent } from '../src/index.ts';
import { OUTBOARD_FAULTS, RANGE_FAULTS, startMirrors, type RangeFault } from './_range-server.ts';
import { bytesOf, fixture } from './_fixture.ts';

describe('download', { timeout: 180_000 }, () => {
  for (const [size, log] of [
    [0, 4],
    [1, 4],
    [16384, 4],
    [16385, 4],
    [1_000_000, 4],
    [70_000, 0],
    [300_000, 6],
  ] as const) {
    it(`gives the content of ${size} bytes, groups of ${1024 << log}`, async () => {
      const { content, root, outboard } = fixture(size, size + log, log);
      const mirrors = await startMirrors(content, outboard, [{}]);
      try {
        const progress: DownloadProgress[] = [];
        const blob = await download(mirrors.urls[0], {
          root,
          chunkGroupLog: log,
          rangeSize: 4 * (1024 << log),
          onProgress: (p) => progress.push(p),
        });
        assert.deepEqual(await bytesOf(blob), content);
        const last = progress[progress.length - 1];
        assert.equal(last.verifiedBytes, size);
        assert.equal(last.totalBytes, size);
        assert.equal(last.sources[0].verifiedBytes, size);
        // Each content byte fetched once.
        assert.equal(mirrors.stats[0].contentBytes, size);
      } finally {
        await mirrors.close();
      }
    });
  }

  it('takes its ranges from the mirrors in parallel and gives each its share', async () => {
    const { content, root, outboard } = fixture(3_000_000, 1);
    const mirrors = await startMirrors(content, outboard, [{}, {}, {}]);
    try {
      const blob = await download(mirrors.urls, { root, rangeSize: 65536, concurrency: 6, strategy: 'round-robin' });
      assert.deepEqual(await bytesOf(blob), content);
      for (const s of mirrors.stats) assert.ok(s.contentBytes > 0);
      assert.equal(
        mirrors.stats.reduce((n, s) => n + s.contentBytes, 0),
        content.length,
      );
    } finally {
      await mirrors.close();
    }
  });

  for (const fault of RANGE_FAULTS) {
    it(`drops or demotes a mirror whose ranges ${fault}, and gets the content from another`, async () => {
      const { content, root, outboard } = fixture(600_000, 2);
      const always = (): RangeFault => fault;
      const mirrors = await startMirrors(content, outboard, [{ rangeFault: always }, {}]);
      try {
        const blob = await download(mirrors.urls, {
          root,
          rangeSize: 65536,
          stallTimeout: 1000,
          strategy: 'in-order',
        });
        assert.deepEqual(await bytesOf(blob), content);
        assert.ok(mirrors.stats[0].faults.length > 0, 'the bad mirror was asked');
      } finally {
        await mirrors.close();
      }
    });
  }

  it('keeps the groups of a range before a flipped byte, and fetches again only the rest of the range', async () => {
    const { content, root, outboard } = fixture(2_000_000, 3);
    const rangeSize = 32 * 16384;
    const flipped = 300_000;
    const prefix = Math.floor(flipped / 16384) * 16384;
    // The first mirror flips one byte in the first range.
    const mirrors = await startMirrors(content, outboard, [
      { rangeFault: (_, start) => (start === 0 ? 'flip' : undefined), flipAt: () => flipped },
      {},
    ]);
    try {
      const blob = await download(mirrors.urls, { root, rangeSize, concurrency: 2, strategy: 'in-order' });
      assert.deepEqual(await bytesOf(blob), content);
      assert.deepEqual(mirrors.stats[0].faults, ['flip']);
      const fetched = mirrors.stats.reduce((n, s) => n + s.contentBytes, 0);
      assert.equal(fetched - content.length, rangeSize - prefix, 'bytes fetched twice');
    } finally {
      await mirrors.close();
    }
  });

  it('asks its first ranges while the outboard arrives, and reads them once it proves the root', async () => {
    const { content, root, outboard } = fixture(1_000_000, 81);
    const mirrors = await startMirrors(content, outboard, [{}, {}]);
    try {
      const concurrency = 3;
      /** Range requests made, and how many of them came before the outboard's rest was sent. */
      let ranges = 0;
      let before: number | undefined;
      let allAsked = () => {};
      const asked = new Promise<void>((resolve) => (allAsked = resolve));
      const fetchVia = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
        const url = String(input);
        if (!url.endsWith('.obao')) {
          if (++ranges === concurrency) allAsked();
          return fetch(input, init);
        }
        const whole = new Uint8Array(await (await fetch(input, init)).arrayBuffer());
        // The header at once; the rest once the ranges are asked, or after 3 s.
        const body = new ReadableStream<Uint8Array>({
          async start(controller) {
            controller.enqueue(whole.slice(0, 8));
            await Promise.race([asked, new Promise((r) => setTimeout(r, 3000))]);
            before = ranges;
            controller.enqueue(whole.slice(8));
            controller.close();
          },
        });
        return new Response(body, { status: 200 });
      };
      const events: GroupEvent[] = [];
      const blob = await download(mirrors.urls, {
        root,
        concurrency,
        rangeSize: 8 * 16384,
        fetch: fetchVia,
        onGroups: (e) => events.push(e),
      });
      assert.deepEqual(await bytesOf(blob), content);
      assert.equal(before, concurrency, 'ranges asked before the outboard was whole');
      // Asked of both mirrors, each range once: nothing fetched twice.
      assert.ok(mirrors.stats.every((s) => s.rangeRequests > 0));
      assert.equal(
        mirrors.stats.reduce((n, s) => n + s.contentBytes, 0),
        content.length,
      );
      assert.equal(
        events.filter((e) => e.kind === 'verified').reduce((n, e) => n + e.count, 0),
        Math.ceil(content.length / 16384),
      );
    } finally {
      await mirrors.close();
    }
  });

  it('asks nothing ahead of a download its store knows, and reads nothing asked ahead that the proven tree does not plan', async () => {
    const { content, root, outboard } = fixture(1_000_000, 82);
    // The first mirror's outboard is another file's, of 3 groups: its header has the range of
    // groups 0-1 asked ahead, which no plan of the proven tree (ranges of 5 groups) holds.
    const other = fixture(40_000, 83);
    const mirrors = await startMirrors(content, outboard, [{ outboardFault: 'other' }, {}], other.outboard);
    try {
      const store = memoryStore();
      const events: GroupEvent[] = [];
      const opts = { root, rangeSize: 5 * 16384, concurrency: 2, store, strategy: 'in-order' as const };
      const blob = await download(mirrors.urls, { ...opts, onGroups: (e) => events.push(e) });
      assert.deepEqual(await bytesOf(blob), content);
      assert.ok(events.some((e) => e.kind === 'requested' && e.first === 0 && e.count === 5));
      assert.ok(!events.some((e) => e.kind === 'requested' && e.count === 2));
      // Opened again, the store holds it whole: no range is asked, ahead or not.
      const asked = mirrors.stats.map((s) => s.rangeRequests);
      const again = await download(mirrors.urls, opts);
      assert.deepEqual(await bytesOf(again), content);
      assert.deepEqual(
        mirrors.stats.map((s) => s.rangeRequests),
        asked,
      );
    } finally {
      await mirrors.close();
    }
  });

  it('takes the bytes alone where Content-Range cannot be read (a cross-origin response that does not expose it)', async () => {
    for (const size of [1000, 16384, 16385, 500_000]) {
      const { content, root, outboard } = fixture(size, 60 + size);
      const mirrors = await startMirrors(content, outboard, [
        { hideContentRange: true, rangeFault: (n) => (n === 1 ? 'extend' : n === 2 ? 'flip' : undefined) },
        { hideContentRange: true },
      ]);
      try {
        const blob = await download(mirrors.urls, { root, rangeSize: 65536, strategy: 'in-order' });
        assert.deepEqual(await bytesOf(blob), content, `size ${size}`);
      } finally {
        await mirrors.close();
      }
    }
  });

  it('fails with a DownloadError naming what each mirror did when none is honest', async () => {
    const { content, root, outboard } = fixture(200_000, 3);
    const faults: RangeFault[] = ['flip', 'status-500', 'content-range'];
    const mirrors = await startMirrors(
      content,
      outboard,
      faults.map((f) => ({ rangeFault: () => f })),
    );
    try {
      const err = await download(mirrors.urls, { root, rangeSize: 65536, stallTimeout: 300 }).then(
        () => assert.fail('resolved'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof DownloadError, String(err));
      assert.equal(err.failures.length, 3);
      assert.match(err.failures[0].faults[0], /does not match the root/);
      assert.match(err.failures[1].faults[0], /answered 500/);
      assert.match(err.failures[2].faults[0], /Content-Range/);
      for (const f of err.failures) assert.ok(f.dropped);
      for (const url of mirrors.urls) assert.ok(err.message.includes(url));
    } finally {
      await mirrors.close();
    }
  });

  for (const fault of OUTBOARD_FAULTS) {
    it(`skips a mirror whose outboard is ${fault} and takes the next one's`, async () => {
      const { content, root, outboard } = fixture(300_000, 4);
      const other = fixture(300_000, 5).outboard;
      const mirrors = await startMirrors(content, outboard, [{ outboardFault: fault }, {}], other);
      try {
        const blob = await download(mirrors.urls, { root, stallTimeout: 2000 });
        assert.deepEqual(await bytesOf(blob), content);
        assert.equal(mirrors.stats[1].outboardRequests, 1);
      } finally {
        await mirrors.close();
      }
      const alone = await startMirrors(content, outboard, [{ outboardFault: fault }], other);
      try {
        const err = await download(alone.urls, { root, stallTimeout: 2000 }).catch((e: unknown) => e);
        assert.ok(err instanceof DownloadError, String(err));
        assert.match(err.message, /no outboard proves the root/);
        assert.equal(alone.stats[0].contentBytes, 0);
      } finally {
        await alone.close();
      }
    });
  }

  it('refuses an outboard larger than maxOutboardBytes without reading it', async () => {
    const { content, root, outboard } = fixture(300_000, 6);
    const mirrors = await startMirrors(content, outboard, [{}]);
    try {
      const err = await download(mirrors.urls, { root, maxOutboardBytes: 100 }).catch((e: unknown) => e);
      assert.ok(err instanceof DownloadError);
      assert.match(err.message, /exceeds opts.maxOutboardBytes/);
    } finally {
      await mirrors.close();
    }
  });

  it('uses an outboard given as bytes, and refuses one that does not prove the root', async () => {
    const { content, root, outboard } = fixture(100_000, 7);
    const mirrors = await startMirrors(content, outboard, [{ outboardFault: 'status-404' }]);
    try {
      assert.deepEqual(await bytesOf(await download(mirrors.urls, { root, outboard })), content);
      const bad = outboard.slice();
      bad[20] ^= 1;
      await assert.rejects(download(mirrors.urls, { root, outboard: bad }), DownloadError);
    } finally {
      await mirrors.close();
    }
  });

  it('rejects with the reason of an abort, and settles', async () => {
    const { content, root, outboard } = fixture(2_000_000, 8);
    const mirrors = await startMirrors(content, outboard, [{ bytesPerSecond: 1_000_000 }]);
    try {
      const controller = new AbortController();
      const reason = new Error('stop');
      const pending = download(mirrors.urls, { root, signal: controller.signal, rangeSize: 65536 });
      setTimeout(() => controller.abort(reason), 200);
      await assert.rejects(pending, (e) => e === reason);
      await assert.rejects(download(mirrors.urls, { root, signal: AbortSignal.abort(reason) }), (e) => e === reason);
    } finally {
      await mirrors.close();
    }
  });

  it('resumes from the store: only the missing groups are fetched again', async () => {
    const { content, root, outboard } = fixture(2_000_000, 9);
    const store = memoryStore();
    const slow = await startMirrors(content, outboard, [{ bytesPerSecond: 2_000_000 }]);
    try {
      const controller = new AbortController();
      const first = download(slow.urls, {
        root,
        store,
        signal: controller.signal,
        rangeSize: 65536,
        onProgress: (p) => {
          if (p.verifiedBytes > 500_000) controller.abort(new Error('stop'));
        },
      });
      await assert.rejects(first, /stop/);
    } finally {
      await slow.close();
    }
    const [stored] = await store.list();
    assert.ok(stored.recordedBytes > 0 && stored.recordedBytes < content.length);
    const mirrors = await startMirrors(content, outboard, [{}]);
    try {
      const blob = await download(mirrors.urls, { root, store, rangeSize: 65536 });
      assert.deepEqual(await bytesOf(blob), content);
      assert.equal(mirrors.stats[0].contentBytes, content.length - stored.recordedBytes);
      // Complete: nothing fetched, not even the outboard (kept in the store).
      const before = { ...mirrors.stats[0] };
      assert.deepEqual(await bytesOf(await download(mirrors.urls, { root, store })), content);
      assert.equal(mirrors.stats[0].contentBytes, before.contentBytes);
      assert.equal(mirrors.stats[0].outboardRequests, before.outboardRequests);
    } finally {
      await mirrors.close();
    }
  });
});

describe('an outboard whose header lies within the final group', { timeout: 60_000 }, () => {
  for (const delta of [-5, 7]) {
    it(`(${delta > 0 ? '+' : ''}${delta} bytes) gives the true content and blames no source`, async () => {
      const { content, root, outboard } = fixture(100_000, 50);
      const lying = outboard.slice();
      new DataView(lying.buffer).setBigUint64(0, BigInt(content.length + delta), true);
      const mirrors = await startMirrors(content, lying, [{}]);
      try {
        const store = memoryStore();
        const progress: DownloadProgress[] = [];
        const blob = await download(mirrors.urls, { root, store, onProgress: (p) => progress.push(p) });
        assert.deepEqual(await bytesOf(blob), content);
        assert.equal(progress[progress.length - 1].sources[0].faults, 0);
        const [info] = await store.list();
        assert.deepEqual([info.size, info.complete], [content.length, true]);
        // Stored, the outboard's header is the true size: the next run needs no request.
        const before = mirrors.stats[0].outboardRequests + mirrors.stats[0].rangeRequests;
        assert.deepEqual(await bytesOf(await download(mirrors.urls, { root, store })), content);
        assert.equal(mirrors.stats[0].outboardRequests + mirrors.stats[0].rangeRequests, before);
      } finally {
        await mirrors.close();
      }
    });
  }

  it('on resume, without the final group stored, proves the size before counting any stored group', async () => {
    const { content, root, outboard } = fixture(100_000, 51);
    const claimed = content.length - 5;
    const lying = outboard.slice();
    new DataView(lying.buffer).setBigUint64(0, BigInt(claimed), true);
    // A store left with the lying outboard and the first four groups, but not the final one.
    const store = memoryStore();
    const before = await store.open(root, { size: claimed, chunkGroupLog: 4 });
    await before.writeOutboard(lying);
    await before.write(0, content.subarray(0, 4 * 16384));
    await before.commit([{ first: 0, count: 4 }]);
    await before.close();
    const mirrors = await startMirrors(content, outboard, [{}]);
    try {
      const stored: number[] = [];
      const progress: DownloadProgress[] = [];
      const blob = await download(mirrors.urls, {
        root,
        store,
        onGroups: (e) => e.kind === 'stored' && stored.push(e.first),
        onProgress: (p) => progress.push(p),
      });
      assert.deepEqual(await bytesOf(blob), content);
      // The final group reopened the store with the size it proved: what the old one held is
      // neither counted nor reported as stored, and every byte was fetched.
      assert.deepEqual(stored, []);
      assert.equal(progress[progress.length - 1].verifiedBytes, content.length);
      assert.equal(mirrors.stats[0].contentBytes, content.length);
      const [info] = await store.list();
      assert.deepEqual([info.size, info.complete, info.recordedBytes], [content.length, true, content.length]);
    } finally {
      await mirrors.close();
    }
  });
});
