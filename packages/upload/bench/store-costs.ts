// What the server store's options cost, in one process, rounds interleaved, medians:
// - `verifyStored`: the read of the whole upload at finish (`storedRootOf`), beside a plain read
//   of the same file in the same 4 MiB pieces and `b3sum` (native BLAKE3) over it.
// - `outboard`: the bounded builder the store uses (parents appended to a file, pre-order written
//   at the end) beside `BaoEncoder` (all leaf values in memory), fed 1 MiB pieces.
// Usage: node --import tsx bench/store-costs.ts [MiB=256] [rounds=5]
import { BaoEncoder } from '@blake3-web/stream';
import { Upload } from '@tus/utils';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OutboardBuilder } from '../src/_outboard-builder.ts';
import { Blake3FileStore } from '../src/tus-server.ts';
import { median, writePaintedFile } from './_bench-file.ts';

const mib = Number(process.argv[2] ?? 256);
const rounds = Number(process.argv[3] ?? 5);
const size = mib << 20;
const dir = mkdtempSync(join(tmpdir(), 'blake3-store-costs-'));
const b3sum = fileURLToPath(new URL('../../../.tools/cargo/bin/b3sum', import.meta.url));

async function time(run: () => Promise<unknown> | unknown): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

const mbps = (ms: number, bytes = size) => ((bytes / ms) * 1000) / 1e6;

try {
  const store = new Blake3FileStore({ directory: dir });
  await store.create(new Upload({ id: 'u', size, offset: 0 }));
  writePaintedFile(join(dir, 'u'), size); // as if uploaded
  const plainRead = async () => {
    const file = await open(join(dir, 'u'), 'r');
    const buffer = new Uint8Array(4 << 20);
    for (let at = 0; at < size;) at += (await file.read(buffer, 0, buffer.length, at)).bytesRead;
    await file.close();
  };
  const reads: Record<string, number[]> = { 'read only': [], 'verifyStored (read + hash)': [], b3sum: [] };
  await store.storedRootOf('u', size); // warm: the page cache, the kernel
  for (let r = 0; r < rounds; r++) {
    reads['read only'].push(await time(plainRead));
    reads['verifyStored (read + hash)'].push(await time(() => store.storedRootOf('u', size)));
    reads.b3sum.push(await time(() => execFileSync(b3sum, ['--num-threads', '1', join(dir, 'u')])));
  }
  console.log(
    `${mib} MiB from the page cache, ${rounds} rounds, load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  for (const [name, ms] of Object.entries(reads))
    console.log(`  ${name.padEnd(28)} ${median(ms).toFixed(0).padStart(6)} ms  ${mbps(median(ms)).toFixed(0)} MB/s`);

  const content = new Uint8Array(64 << 20).map((_, i) => i % 251);
  const piece = 1 << 20;
  for (const chunkGroupLog of [0, 4]) {
    const times: Record<string, number[]> = { BaoEncoder: [], 'store builder': [] };
    for (let r = 0; r < rounds; r++) {
      times.BaoEncoder.push(
        await time(() => {
          const encoder = new BaoEncoder({ chunkGroupLog });
          for (let i = 0; i < content.length; i += piece) encoder.update(content.subarray(i, i + piece));
          encoder.finalize();
        }),
      );
      times['store builder'].push(
        await time(async () => {
          const builder = new OutboardBuilder(join(dir, 'parents'), chunkGroupLog);
          for (let i = 0; i < content.length; i += piece) {
            builder.update(content.subarray(i, i + piece));
            if (builder.shouldFlush) await builder.flush();
          }
          builder.root();
          await builder.writeOutboard(join(dir, 'u.obao'));
        }),
      );
    }
    console.log(
      `outboard of 64 MiB in 1 MiB pieces, chunkGroupLog ${chunkGroupLog}, load average ${loadavg()[0].toFixed(1)}`,
    );
    for (const [name, ms] of Object.entries(times))
      console.log(
        `  ${name.padEnd(28)} ${median(ms).toFixed(0).padStart(6)} ms  ${mbps(median(ms), content.length).toFixed(0)} MB/s`,
      );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
