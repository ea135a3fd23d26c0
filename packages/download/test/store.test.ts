import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { directoryStore } from '../src/directory-store.ts';
import { memoryStore, SLAB_BYTES } from '../src/memory-store.ts';
import { RECORD_ENTRY_LEN, RECORD_HEADER_LEN } from '../src/_record.ts';
import type { DownloadStore } from '../src/store.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'blake3-download-store-'));
  dirs.push(d);
  return d;
};

const ROOT = 'ab'.repeat(32);
const OTHER = 'cd'.repeat(32);
const shape = { size: 40_000, chunkGroupLog: 4 };
const paint = (n: number, seed = 0) => Uint8Array.from({ length: n }, (_, i) => (i + seed) % 251);

const stores: [string, () => DownloadStore][] = [
  ['memoryStore', () => memoryStore()],
  ['directoryStore', () => directoryStore(tempDir())],
];

for (const [name, make] of stores) {
  describe(name, () => {
    it('keeps written groups, records only committed runs, and reads them back', async () => {
      const store = make();
      const a = await store.open(ROOT, shape);
      assert.deepEqual(a.recorded, []);
      await a.write(16384, paint(16384, 1));
      await a.write(0, paint(16384));
      await a.commit([{ first: 0, count: 2 }]);
      await a.write(32768, paint(40_000 - 32768, 2));
      await a.close();
      const b = await store.open(ROOT, shape);
      assert.deepEqual(b.recorded, [{ first: 0, count: 2 }]);
      assert.deepEqual(await b.read(16384, 16384), paint(16384, 1));
      await b.commit([{ first: 2, count: 1 }]);
      const blob = await b.blob();
      assert.equal(blob.size, 40_000);
      assert.deepEqual(new Uint8Array(await blob.slice(32768).arrayBuffer()), paint(40_000 - 32768, 2));
      await b.close();
      const [info] = await store.list();
      assert.deepEqual(info, { root: ROOT, ...shape, recordedBytes: 40_000, complete: true });
    });

    it('empties a download opened with another shape, and removes one by root', async () => {
      const store = make();
      const a = await store.open(ROOT, shape);
      await a.write(0, paint(16384));
      await a.commit([{ first: 0, count: 1 }]);
      await a.writeOutboard(paint(72));
      await a.close();
      const b = await store.open(ROOT, { size: 40_000, chunkGroupLog: 3 });
      assert.deepEqual(b.recorded, []);
      assert.equal(await b.readOutboard(), undefined);
      await b.close();
      const c = await store.open(OTHER, shape);
      await c.close();
      assert.deepEqual((await store.list()).map((i) => i.root).sort(), [ROOT, OTHER]);
      assert.equal(await store.remove(ROOT), true);
      assert.equal(await store.remove(ROOT), false);
      assert.deepEqual(
        (await store.list()).map((i) => i.root),
        [OTHER],
      );
    });

    it('replaces the record with rewriteRecord', async () => {
      const store = make();
      const a = await store.open(ROOT, shape);
      await a.commit([{ first: 0, count: 3 }]);
      await a.rewriteRecord([{ first: 1, count: 1 }]);
      await a.commit([{ first: 2, count: 1 }]);
      await a.close();
      const b = await store.open(ROOT, shape);
      assert.deepEqual(b.recorded, [
        { first: 1, count: 1 },
        { first: 2, count: 1 },
      ]);
      await b.close();
    });
  });
}

describe('directoryStore record', () => {
  it('drops a torn or damaged tail and appends after what is sound', async () => {
    const dir = tempDir();
    const store = directoryStore(dir);
    const a = await store.open(ROOT, shape);
    await a.commit([{ first: 0, count: 1 }]);
    await a.commit([{ first: 1, count: 1 }]);
    await a.close();
    const recordPath = join(dir, `${ROOT}.record`);
    const bytes = readFileSync(recordPath);
    assert.equal(bytes.length, RECORD_HEADER_LEN + 2 * RECORD_ENTRY_LEN);
    // A torn append: half an entry. Then a flipped bit in the second entry.
    writeFileSync(recordPath, Buffer.concat([bytes, bytes.subarray(RECORD_HEADER_LEN, RECORD_HEADER_LEN + 7)]));
    const b = await store.open(ROOT, shape);
    assert.deepEqual(b.recorded, [
      { first: 0, count: 1 },
      { first: 1, count: 1 },
    ]);
    await b.commit([{ first: 2, count: 1 }]);
    await b.close();
    const again = readFileSync(recordPath);
    again[RECORD_HEADER_LEN + RECORD_ENTRY_LEN + 3] ^= 1;
    writeFileSync(recordPath, again);
    const c = await store.open(ROOT, shape);
    assert.deepEqual(c.recorded, [{ first: 0, count: 1 }]);
    await c.close();
    assert.equal(statSync(recordPath).size, RECORD_HEADER_LEN + RECORD_ENTRY_LEN);
  });

  it('refuses a root that is not 64 lowercase hex digits (no path outside the directory)', async () => {
    const store = directoryStore(tempDir());
    await assert.rejects(store.open('../x', shape), TypeError);
    await assert.rejects(store.remove('AB'.repeat(32)), TypeError);
    assert.throws(() => directoryStore(3 as never), /directory must be/);
  });
});

describe('memoryStore slabs', () => {
  // Content over three slabs, the last one short.
  const size = 2 * SLAB_BYTES + 40_000;
  const content = paint(size, 7);
  const part = (start: number, end: number) => content.subarray(start, end);
  const bytesOf = async (blob: Blob) => new Uint8Array(await blob.arrayBuffer());

  it('keeps writes across slab boundaries, in any order, as the content', async () => {
    const store = memoryStore();
    const a = await store.open(ROOT, { size, chunkGroupLog: 4 });
    // A write over the first boundary, one over the second, then the rest out of order.
    const cuts = [
      0,
      300_000,
      SLAB_BYTES - 16384,
      SLAB_BYTES + 16384,
      2 * SLAB_BYTES - 1000,
      2 * SLAB_BYTES + 500,
      size,
    ];
    for (const i of [2, 4, 0, 5, 1, 3]) {
      const written = part(cuts[i], cuts[i + 1]).slice();
      await a.write(cuts[i], written);
      // Nothing of the caller's bytes is kept: they are read into again.
      written.fill(0);
    }
    assert.deepEqual(await a.read(SLAB_BYTES - 100, 200), part(SLAB_BYTES - 100, SLAB_BYTES + 100));
    const blob = await a.blob();
    assert.equal(blob.size, size);
    assert.deepEqual(await bytesOf(blob), content);
  });

  it('reads and makes the Blob of a partly written content from the bytes written', async () => {
    const store = memoryStore();
    const a = await store.open(ROOT, { size, chunkGroupLog: 4 });
    await a.write(0, part(0, SLAB_BYTES));
    await a.write(SLAB_BYTES + 16384, part(SLAB_BYTES + 16384, SLAB_BYTES + 32768));
    const read = await a.read(SLAB_BYTES - 16384, 65536);
    assert.deepEqual(read.subarray(0, 16384), part(SLAB_BYTES - 16384, SLAB_BYTES));
    assert.deepEqual(read.subarray(16384, 32768), new Uint8Array(16384));
    assert.deepEqual(read.subarray(32768, 49152), part(SLAB_BYTES + 16384, SLAB_BYTES + 32768));
    const blob = await bytesOf(await a.blob());
    assert.equal(blob.length, SLAB_BYTES + 16384);
    assert.deepEqual(blob.subarray(SLAB_BYTES), part(SLAB_BYTES + 16384, SLAB_BYTES + 32768));
  });

  it('counts bytes written twice once, whatever the offsets, and the content stays whole', async () => {
    const store = memoryStore({ maxBytes: size });
    const a = await store.open(ROOT, { size, chunkGroupLog: 4 });
    // Overlapping writes at other offsets, and again into a slab already whole.
    await a.write(0, part(0, 49152));
    await a.write(16384, part(16384, 65536));
    await a.write(65536, part(65536, size));
    await a.write(32768, part(32768, SLAB_BYTES + 16384));
    const blob = await a.blob();
    assert.equal(blob.size, size);
    assert.deepEqual(await bytesOf(blob), content);
    // Full: one byte more than the content is refused, nothing of it kept.
    const other = await store.open(OTHER, { size: 1, chunkGroupLog: 4 });
    await assert.rejects(other.write(0, new Uint8Array(1)), { name: 'DownloadQuotaError' });
  });

  it('refuses a write outside the content', async () => {
    const a = await memoryStore().open(ROOT, { size: 1000, chunkGroupLog: 4 });
    await assert.rejects(a.write(990, new Uint8Array(11)), RangeError);
    await assert.rejects(a.write(-1, new Uint8Array(1)), RangeError);
  });
});
