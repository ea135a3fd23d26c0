// The events `onGroups` gives are a true account of the download: every group ends stored or
// verified exactly once, a group verifies only from a source it was asked of, and the groups a
// hostile source failed are verified later from another.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { createVerifiedFetch, download, memoryStore, type GroupEvent } from '../src/index.ts';
import { startMirrors } from './_range-server.ts';
import { bytesOf, fixture } from './_fixture.ts';

const GROUP = 16384;

/** How often each group ended 'stored' or 'verified'. */
function settled(events: readonly GroupEvent[], groups: number): number[] {
  const times = new Array<number>(groups).fill(0);
  for (const e of events)
    if (e.kind === 'stored' || e.kind === 'verified') for (let g = e.first; g < e.first + e.count; g++) times[g]++;
  return times;
}

describe('onGroups', { timeout: 120_000 }, () => {
  it('tells each group once, and the groups a hostile source failed verify from the other', async () => {
    const { content, root, outboard } = fixture(1_000_000, 71);
    const groups = Math.ceil(content.length / GROUP);
    // The first mirror serves the final group and flips a byte in every other range.
    const finalStart = (groups - 1) * GROUP;
    const mirrors = await startMirrors(content, outboard, [
      { rangeFault: (_, start) => (start === finalStart ? undefined : 'flip') },
      {},
    ]);
    const [hostile, honest] = mirrors.urls;
    try {
      const events: GroupEvent[] = [];
      const blob = await download(mirrors.urls, {
        root,
        rangeSize: 4 * GROUP,
        strategy: 'in-order',
        onGroups: (e) => events.push(e),
      });
      assert.deepEqual(await bytesOf(blob), content);
      assert.deepEqual(settled(events, groups), new Array<number>(groups).fill(1));
      assert.equal(
        events.filter((e) => e.kind === 'verified').reduce((n, e) => n + e.count, 0),
        groups,
      );
      // A group verifies only inside a range asked of the same source before it.
      for (const [i, e] of events.entries()) {
        if (e.kind !== 'verified' && e.kind !== 'refused') continue;
        const asked = events
          .slice(0, i)
          .some(
            (r) =>
              r.kind === 'requested' &&
              r.source === e.source &&
              r.first <= e.first &&
              e.first + e.count <= r.first + r.count,
          );
        assert.ok(asked, `${JSON.stringify(e)} follows a request for it`);
      }
      const refused = events.filter((e) => e.kind === 'refused');
      assert.ok(refused.length > 0, 'the hostile source was refused');
      for (const r of refused) {
        assert.equal(r.source, hostile);
        assert.match(r.reason!, /^group \d+ does not match the root$/);
        const at = events.indexOf(r);
        for (let g = r.first; g < r.first + r.count; g++) {
          const later = events
            .slice(at + 1)
            .find((e) => e.kind === 'verified' && e.first <= g && g < e.first + e.count);
          assert.equal(later?.source, honest, `group ${g} verified later from the honest source`);
        }
      }
      // Dropped at its first bad group: no range starts on it after its first refusal.
      const firstRefusal = events.indexOf(refused[0]);
      assert.ok(!events.slice(firstRefusal).some((e) => e.kind === 'requested' && e.source === hostile));
    } finally {
      await mirrors.close();
    }
  });

  it("tells the ranges asked ahead of a source dropped before they were read: each source's groups asked add up to what it was sent", async () => {
    const { content, root, outboard } = fixture(1_000_000, 75);
    const groups = Math.ceil(content.length / GROUP);
    const finalStart = (groups - 1) * GROUP;
    // The first mirror flips the final group, which is asked before any range is read: it is
    // dropped while the ranges asked of it ahead still wait, unread.
    const mirrors = await startMirrors(content, outboard, [
      { rangeFault: (_, start) => (start === finalStart ? 'flip' : undefined) },
      {},
    ]);
    try {
      const events: GroupEvent[] = [];
      const blob = await download(mirrors.urls, { root, rangeSize: 4 * GROUP, onGroups: (e) => events.push(e) });
      assert.deepEqual(await bytesOf(blob), content);
      assert.deepEqual(settled(events, groups), new Array<number>(groups).fill(1));
      for (const [i, url] of mirrors.urls.entries()) {
        const told = events.filter((e) => e.kind === 'requested' && e.source === url).reduce((n, e) => n + e.count, 0);
        const sent = mirrors.stats[i].asked.reduce(
          (n, [start, last]) => n + Math.floor(last / GROUP) - Math.floor(start / GROUP) + 1,
          0,
        );
        assert.equal(told, sent, `the groups asked of mirror ${i}`);
      }
      assert.ok(mirrors.stats[0].asked.length > 1, 'ranges were asked of the first mirror ahead of the final group');
      assert.ok(!events.some((e) => e.kind === 'verified' && e.source === mirrors.urls[0]));
    } finally {
      await mirrors.close();
    }
  });

  it('tells the groups a resumed download found stored, then fetches only the others', async () => {
    const { content, root, outboard } = fixture(700_000, 72);
    const groups = Math.ceil(content.length / GROUP);
    const mirrors = await startMirrors(content, outboard, [{}]);
    const store = memoryStore();
    try {
      const stop = new AbortController();
      let seen = 0;
      await assert.rejects(
        download(mirrors.urls, {
          root,
          store,
          rangeSize: 2 * GROUP,
          concurrency: 1,
          signal: stop.signal,
          onGroups: (e) => {
            if (e.kind === 'verified' && (seen += e.count) >= 10) stop.abort(new Error('enough'));
          },
        }),
        /enough/,
      );
      const [info] = await store.list();
      const events: GroupEvent[] = [];
      const blob = await download(mirrors.urls, { root, store, onGroups: (e) => events.push(e) });
      assert.deepEqual(await bytesOf(blob), content);
      const stored = events.filter((e) => e.kind === 'stored');
      assert.ok(stored.length > 0);
      assert.equal(
        stored.reduce((n, e) => n + e.count, 0),
        Math.ceil(info.recordedBytes / GROUP),
      );
      // Stored groups come first and are never asked for.
      assert.deepEqual(
        events.slice(0, stored.length).map((e) => e.kind),
        stored.map(() => 'stored'),
      );
      for (const s of stored)
        for (const r of events.filter((e) => e.kind === 'requested'))
          assert.ok(r.first + r.count <= s.first || s.first + s.count <= r.first, 'a stored group is not requested');
      assert.deepEqual(settled(events, groups), new Array<number>(groups).fill(1));
    } finally {
      await mirrors.close();
    }
  });

  it('gives createVerifiedFetch the root of each download', async () => {
    const { content, root, outboard } = fixture(100_000, 73);
    const mirrors = await startMirrors(content, outboard, [{}]);
    try {
      const roots = new Set<string>();
      let verified = 0;
      const verifiedFetch = createVerifiedFetch({
        files: { [mirrors.urls[0]]: root },
        store: memoryStore(),
        onGroups: (e, r) => {
          roots.add(r);
          if (e.kind === 'verified') verified += e.count;
        },
      });
      const response = await verifiedFetch(mirrors.urls[0]);
      assert.deepEqual(new Uint8Array(await response.arrayBuffer()), content);
      assert.deepEqual([...roots], [root]);
      assert.equal(verified, Math.ceil(content.length / GROUP));
    } finally {
      await mirrors.close();
    }
  });

  it('tells the one group of empty content verified, from no source', async () => {
    const { content, root, outboard } = fixture(0, 74);
    const mirrors = await startMirrors(content, outboard, [{}]);
    try {
      const events: GroupEvent[] = [];
      await download(mirrors.urls, { root, store: memoryStore(), onGroups: (e) => events.push(e) });
      assert.deepEqual(events, [{ kind: 'verified', first: 0, count: 1 }]);
    } finally {
      await mirrors.close();
    }
  });
});
