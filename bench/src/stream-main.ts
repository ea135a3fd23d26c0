/// <reference path="../../servers/pages/stream-globals.d.ts" />
// `pnpm bench:stream`: Blake3Stream / VerifyStream / hashStream / BaoVerifyStream beside one-shot blake3() and two
// bare pipelines over 128 MiB in 64 KiB chunks, in Node, Chromium and Firefox; rewrites the stream section of
// docs/BENCHMARKS.md.
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import * as core from '@blake3-web/core';
import * as stream from '@blake3-web/stream';
import { chromium, firefox } from 'playwright-core';

import { startFixtureServer } from '../../servers/fixture-server.ts';
import { LAUNCH_OPTIONS } from '../../scripts/browser-paths.mjs';
import { replaceSection } from './doc-section.ts';
import { median } from './stats.ts';
import { measureStreams, type StreamBenchResult } from './stream-measure.ts';
import { repoRoot } from './write-results.ts';

// 128 MiB: a page holds the content and four encodings of it (256 MiB crashed Chromium's renderer).
const opts = { totalBytes: 128 << 20, chunkBytes: 64 << 10, rounds: Number(process.env.ROUNDS ?? 9) };

async function inBrowser(engine: 'chromium' | 'firefox'): Promise<{ version: string; result: StreamBenchResult }> {
  const server = await startFixtureServer();
  const browser = await { chromium, firefox }[engine].launch(LAUNCH_OPTIONS[engine]);
  try {
    const page = await browser.newPage();
    await page.goto(`${server.url}/coi/servers/pages/stream.html`);
    await page.waitForFunction(() => globalThis.blake3WebStream !== undefined);
    await page.evaluate(() => globalThis.blake3WebStream!.core.ready());
    // The measuring function travels as source text and runs against the page's own modules.
    const result = await page.evaluate(
      async ({ source, opts }) => {
        // tsx compiles with names kept through a `__name` helper that the page lacks.
        const fn = new Function(`const __name = (f) => f; return (${source})`)() as typeof measureStreams;
        return fn(globalThis.blake3WebStream!, opts);
      },
      { source: measureStreams.toString(), opts },
    );
    return { version: browser.version(), result };
  } finally {
    await browser.close();
    await server.close();
  }
}

function table(result: StreamBenchResult): string {
  const base = median(result[0].mbps);
  const rows = result.map(
    (r) => `| ${r.case} | ${median(r.mbps).toFixed(0)} | ${(median(r.mbps) / base).toFixed(2)} |`,
  );
  const lines = ['| | MB/s | × one-shot |', '|:--|--:|--:|', ...rows];
  // Time per byte adds up: hashing as fast as one-shot plus the bare pipeline's own cost.
  const best = (floorCase: string) => {
    const floor = result.find((r) => r.case === floorCase);
    return floor ? (1 / (1 + base / median(floor.mbps))).toFixed(2) : '?';
  };
  lines.push(
    '',
    `Best possible for a pass-through here (one-shot hashing plus the bare pipeline): ${best('TransformStream, no hashing')}x one-shot; for one that copies each chunk: ${best('TransformStream, copying, no hashing')}x.`,
  );
  return lines.join('\n');
}

const loadBefore = loadavg()[0].toFixed(1);
await core.ready();
const node = await measureStreams({ core, stream }, opts);
const chrome = await inBrowser('chromium');
const fox = await inBrowser('firefox');
const load = [loadBefore, loadavg()[0].toFixed(1)];
const section = `## Streams

${new Date().toISOString().slice(0, 10)}, ${opts.totalBytes >> 20} MiB as a stream of 64 KiB chunks (1 MiB where a row says so), each case timed once per round over ${opts.rounds} rounds in rotating order; median MB/s (10^6 bytes/s) and the ratio to one-shot \`blake3()\` over the same bytes in the same run. Backend: ${core.backend()}. The machine (2 cores) is shared, so the ratios are the stable part. Run: \`pnpm bench:stream\`.

### Node ${process.versions.node}

${table(node)}

### Chromium ${chrome.version}

${table(chrome.result)}

### Firefox ${fox.version}

${table(fox.result)}

\`Blake3Stream\` and \`VerifyStream\` are identity TransformStreams whose writable side is a stream of their own in front of the base's (packages/stream/src/_pass-through.ts), so that a digest also rejects on a cancel in engines that never call a transformer's \`cancel\`. Both hand the reader a copy of every chunk in a buffer of its own, so that a writer that reuses its buffer cannot change what was hashed; \`hashStream()\` is a reader loop with no second stream and no copy. The last two rows are the same pipeline with a transform that only forwards, and with one that forwards a copy: their time per chunk plus one-shot hashing is the best a pass-through can do without and with the copy, which the line under each table computes. Before the copy (2026-11-22, idle machine) both streams ran at 0.93x one-shot in Node and 0.85-0.86x in Chromium. Rejected ways to give the reader bytes nobody else can change: transferring the writer's buffer (free, but it empties the writer's own array and every other view of that memory) and packing copies into shared 256 KiB slabs (less CPU than one allocation per chunk, but a reader that transfers one chunk's buffer detaches its neighbours); see packages/stream/src/_pass-through.ts. The \`BaoVerifyStream\` rows check the same content against its Bao tree (docs/bao.md, "Throughput"); read with a default reader they too hand the reader fresh arrays of their own (one per verified subtree), so the copying floor bounds them as well; the rows marked "BYOB reader" read into one reused 1 MiB buffer of the reader's, which the stream copies verified bytes into (no fresh memory per subtree). The 1-minute load average was ${load[0]} before the run and ${load[1]} after, on 2 cores.
`;
const doc = join(repoRoot, 'docs', 'BENCHMARKS.md');
writeFileSync(doc, replaceSection(readFileSync(doc, 'utf8'), 'stream', section));
console.log(section);
