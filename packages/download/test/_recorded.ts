import { strict as assert } from 'node:assert';
import type { DownloadStore } from '../src/store.ts';

/** Every group the store records for `root` holds the content's bytes. */
export async function assertRecordedIsContent(
  store: DownloadStore,
  root: string,
  content: Uint8Array,
  chunkGroupLog: number,
): Promise<number> {
  const groupBytes = 1024 << chunkGroupLog;
  const stored = await store.open(root, { size: content.length, chunkGroupLog });
  let groups = 0;
  try {
    for (const run of stored.recorded) {
      const start = run.first * groupBytes;
      const end = Math.min(content.length, (run.first + run.count) * groupBytes);
      const bytes = await stored.read(start, end - start);
      assert.ok(
        Buffer.from(bytes).equals(Buffer.from(content.subarray(start, end))),
        `recorded groups ${run.first}+${run.count} differ`,
      );
      groups += run.count;
    }
  } finally {
    await stored.close();
  }
  return groups;
}
