// The adapter's reads of the file: each range once, the next read while this one is sent, and a
// read the engine never completes fails instead of leaving the upload pending.
import { Random } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ReadAhead } from '../src/read-ahead.ts';

/** A File whose reads from byte `from` on never settle, as a stalled engine read would. */
class StalledBlob extends Blob {
  readonly from: number;
  constructor(parts: BlobPart[], from: number) {
    super(parts);
    this.from = from;
  }
  override slice(start = 0, end = this.size): Blob {
    if (end <= this.from) return super.slice(start, end);
    return { arrayBuffer: () => new Promise<ArrayBuffer>(() => undefined) } as unknown as Blob;
  }
}

describe('ReadAhead', () => {
  it('gives each range as asked, retried ranges included', async () => {
    const data = new Random(29).bytes(10_000);
    const reader = new ReadAhead(new Blob([data]));
    assert.deepEqual(await reader.take(0, 3000, 3000), data.subarray(0, 3000));
    assert.deepEqual(await reader.take(1000, 4000, 3000), data.subarray(1000, 4000));
    assert.deepEqual(await reader.take(4000, 7000, 3000), data.subarray(4000, 7000));
    assert.deepEqual(await reader.take(7000, 10_000, 0), data.subarray(7000));
  });

  it(
    'a read that never settles fails with NotReadableError, and so does the range read ahead',
    { timeout: 10_000 },
    async () => {
      const data = new Random(30).bytes(12_000);
      const reader = new ReadAhead(new StalledBlob([data], 4000), 50);
      assert.deepEqual(await reader.take(0, 4000, 4000), data.subarray(0, 4000));
      const t0 = performance.now();
      await assert.rejects(reader.take(4000, 8000, 4000), {
        name: 'NotReadableError',
        message: /reading bytes \[4000, 8000\) of the file: the engine delivered nothing for 50 ms/,
      });
      await assert.rejects(reader.take(8000, 12_000, 0), {
        name: 'NotReadableError',
        message: /reading bytes \[8000, 12000\) of the file/,
      });
      assert.ok(performance.now() - t0 < 5000, 'each stalled read fails after its limit, not later');
    },
  );
});
