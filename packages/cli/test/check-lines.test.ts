import { Random, testSeed } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkFileLines, MAX_LINE_BYTES, NotUtf8Error, type CheckFileLine } from '../src/check-lines.ts';

async function* chunked(data: Uint8Array, rng: Random): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < data.length;) {
    const n = rng.pick([1, 2, 3, 7, 100, 4096, 65536, 200_000]);
    yield data.subarray(at, (at += n));
  }
}

async function lines(data: Uint8Array, rng: Random): Promise<CheckFileLine[]> {
  const out: CheckFileLine[] = [];
  for await (const line of checkFileLines(chunked(data, rng))) out.push(line);
  return out;
}

describe('checkFileLines', () => {
  const seed = testSeed();
  it(`splits after each LF whatever the chunks, holding at most ${MAX_LINE_BYTES} bytes of a line (seed ${seed})`, async () => {
    const rng = new Random(seed);
    const crTail = `ok${'\r'.repeat(MAX_LINE_BYTES + 5000)}`;
    const text = [
      'é ✓ 否认 😀',
      '',
      crTail,
      `${crTail}x`,
      'a'.repeat(MAX_LINE_BYTES + 1),
      'a'.repeat(MAX_LINE_BYTES),
      'last without LF',
    ].join('\n');
    for (let round = 0; round < 20; round++) {
      assert.deepEqual(await lines(Buffer.from(text), rng), [
        { text: 'é ✓ 否认 😀' },
        { text: '' },
        { text: 'ok' + '\r'.repeat(MAX_LINE_BYTES - 2) },
        { tooLong: true },
        { tooLong: true },
        { text: 'a'.repeat(MAX_LINE_BYTES) },
        { text: 'last without LF' },
      ]);
    }
  });

  it('a line that is not UTF-8, short or too long, stops the reading after the lines before it', async () => {
    const rng = new Random(seed);
    for (const bad of [
      Buffer.from([0xc3]),
      Buffer.concat([Buffer.alloc(MAX_LINE_BYTES + 10, 0x61), Buffer.from([0xff])]),
    ]) {
      const seen: CheckFileLine[] = [];
      await assert.rejects(async () => {
        for await (const line of checkFileLines(
          chunked(Buffer.concat([Buffer.from('fine\n'), bad, Buffer.from('\nnever\n')]), rng),
        ))
          seen.push(line);
      }, NotUtf8Error);
      assert.deepEqual(seen, [{ text: 'fine' }]);
    }
  });
});
