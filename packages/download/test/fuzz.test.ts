// Random faults per range at random, in several mirrors: with one honest mirror the result is
// the content; with none, a DownloadError that lists every mirror; in both cases every group the
// store records holds the content's bytes, and every run ends within its time limit.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Random, testSeed } from '@blake3-web/testkit';
import { download, DownloadError } from '../src/index.ts';
import { directoryStore } from '../src/directory-store.ts';
import { RANGE_FAULTS, startMirrors, type Mirror } from './_range-server.ts';
import { bytesOf, fixture } from './_fixture.ts';
import { assertRecordedIsContent } from './_recorded.ts';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const seed = testSeed();
const ROUNDS = 8;

describe(`download fuzz (seed ${seed})`, () => {
  for (let round = 0; round < ROUNDS; round++) {
    const honest = round % 4 !== 3;
    it(`round ${round}: ${honest ? 'one honest mirror' : 'no honest mirror'}`, { timeout: 60_000 }, async () => {
      const random = new Random(seed + round);
      const chunkGroupLog = random.pick([0, 2, 4]);
      const groupBytes = 1024 << chunkGroupLog;
      const size = random.int(1, 1_200_000);
      const { content, root, outboard } = fixture(size, seed + round, chunkGroupLog);
      const count = random.int(2, 4);
      const honestAt = honest ? random.int(0, count - 1) : -1;
      const mirrors: Mirror[] = Array.from({ length: count }, (_, i) => {
        const faultRandom = new Random(seed * 31 + round * 7 + i);
        const rate = honest ? 0.5 : 1;
        return i === honestAt
          ? {}
          : {
              rangeFault: () => (faultRandom.u32() / 2 ** 32 < rate ? faultRandom.pick(RANGE_FAULTS) : undefined),
            };
      });
      const server = await startMirrors(content, outboard, mirrors);
      const dir = mkdtempSync(join(tmpdir(), 'blake3-download-fuzz-'));
      dirs.push(dir);
      const store = directoryStore(dir);
      try {
        const result = await download(server.urls, {
          root,
          chunkGroupLog,
          store,
          rangeSize: groupBytes * random.int(1, 8),
          concurrency: random.int(1, 4),
          strategy: random.pick(['fastest', 'round-robin', 'in-order'] as const),
          stallTimeout: 1000,
        }).then(
          (blob) => ({ blob }),
          (error: unknown) => ({ error }),
        );
        if (honest) {
          assert.ok('blob' in result, `failed: ${'error' in result ? String(result.error) : ''}`);
          assert.deepEqual(await bytesOf(result.blob), content);
        } else {
          assert.ok('error' in result && result.error instanceof DownloadError, String(result));
          assert.deepEqual(
            result.error.failures.map((f) => f.url),
            server.urls,
          );
          for (const f of result.error.failures) assert.ok(f.faults.length > 0, `${f.url} has no fault`);
        }
        await assertRecordedIsContent(store, root, content, chunkGroupLog);
      } finally {
        await server.close();
      }
    });
  }
});
