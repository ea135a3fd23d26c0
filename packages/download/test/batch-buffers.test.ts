import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { Random } from '@blake3-web/testkit';
import { BatchBuffers } from '../src/_batch-buffers.ts';
import { download, downloadStream, memoryStore, type DownloadStore } from '../src/index.ts';
import { startMirrors } from './_range-server.ts';
import { bytesOf, fixture } from './_fixture.ts';

describe('BatchBuffers', () => {
  it('hands out a buffer to one taker at a time, and keeps at most as many as told', () => {
    const buffers = new BatchBuffers(1024, 2);
    const [a, b, c] = [buffers.take(), buffers.take(), buffers.take()];
    assert.equal(new Set([a, b, c]).size, 3);
    for (const x of [a, b, c]) assert.equal(x.byteLength, 1024);
    buffers.give(a);
    buffers.give(a);
    buffers.give(b);
    buffers.give(c);
    const again = [buffers.take(), buffers.take(), buffers.take()];
    // a and b came back once each; c was one too many to keep, so the third is new.
    assert.equal(new Set(again).size, 3);
    assert.deepEqual(new Set(again.slice(0, 2)), new Set([a, b]));
    assert.ok(!again.includes(c));
  });

  it('drops a buffer a body took over (detached) and one of another size', () => {
    const buffers = new BatchBuffers(1024, 4);
    const taken = buffers.take();
    const moved = structuredClone(taken, { transfer: [taken] });
    assert.equal(taken.byteLength, 0);
    buffers.give(taken);
    buffers.give(new ArrayBuffer(512));
    const next = buffers.take();
    assert.notEqual(next, taken);
    assert.equal(next.byteLength, 1024);
    assert.equal(moved.byteLength, 1024);
  });
});

/**
 * A store whose writes take a while and which checks, as each write settles, that the bytes it
 * was given are still the ones it was given (a buffer read into again too early would change
 * them, or detach them), before keeping them in `inner`.
 */
function slowStore(content: Uint8Array, seed: number) {
  const inner = memoryStore();
  const random = new Random(seed);
  const problems: string[] = [];
  const store: DownloadStore = {
    list: () => inner.list(),
    remove: (root) => inner.remove(root),
    async open(root, shape) {
      const s = await inner.open(root, shape);
      return {
        ...s,
        async write(offset, bytes) {
          const given = bytes.slice();
          if (!given.every((b, i) => b === content[offset + i]))
            problems.push(`bytes at ${offset} are not the content`);
          await new Promise((r) => setTimeout(r, random.bytes(1)[0] % 15));
          if (bytes.length !== given.length || !bytes.every((b, i) => b === given[i]))
            problems.push(
              `bytes at ${offset} changed (${bytes.length} of ${given.length} left) before the write settled`,
            );
          await s.write(offset, bytes);
        },
      };
    },
  };
  return { store, problems };
}

describe('buffers reused across batches and ranges', { timeout: 180_000 }, () => {
  it('never changes bytes a slow store is writing, under concurrency, with a mirror that fails ranges part way', async () => {
    const { content, root, outboard } = fixture(5_000_003, 41);
    const mirrors = await startMirrors(content, outboard, [
      { bytesPerSecond: 40_000_000 },
      { rangeFault: (n) => (n % 3 === 1 ? 'flip' : n % 3 === 2 ? 'truncate' : undefined) },
      {},
    ]);
    try {
      const { store, problems } = slowStore(content, 42);
      // Ranges of 1 MiB: four batches each, so a request reads into its buffer again and again.
      const blob = await download(mirrors.urls, {
        root,
        store,
        rangeSize: 1 << 20,
        concurrency: 6,
        strategy: 'round-robin',
      });
      assert.deepEqual(problems, []);
      assert.deepEqual(await bytesOf(blob), content);
    } finally {
      await mirrors.close();
    }
  });

  it('gives a stream reader who falls behind the content, not bytes read into again', async () => {
    const { content, root, outboard } = fixture(3_000_000, 43);
    const mirrors = await startMirrors(content, outboard, [{}, {}]);
    try {
      const reader = downloadStream(mirrors.urls, { root, rangeSize: 1 << 19, concurrency: 4 }).getReader();
      const chunks: Uint8Array[] = [];
      for (;;) {
        // The download runs ahead, reading more ranges into the buffers of those already given.
        await new Promise((r) => setTimeout(r, 5));
        const { value, done } = await reader.read();
        if (done) break;
        chunks.push(value);
      }
      const got = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
      let at = 0;
      for (const c of chunks) {
        got.set(c, at);
        at += c.length;
      }
      assert.deepEqual(got, content);
    } finally {
      await mirrors.close();
    }
  });
});
