/// <reference path="../../servers/pages/stream-globals.d.ts" />
// `pnpm bench:stream:builds DIR`: the stream cases of `bench:stream` for this tree's build and for
// another checkout's (DIR, built) side by side, in Node, Chromium and Firefox: one round of each
// build in turn, so both see the same machine; prints a table per engine, writes nothing.
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as core from '@blake3-web/core';
import * as stream from '@blake3-web/stream';
import { chromium, firefox, type Page } from 'playwright-core';

import { startFixtureServer } from '../../servers/fixture-server.ts';
import { LAUNCH_OPTIONS } from '../../scripts/browser-paths.mjs';
import { median } from './stats.ts';
import { measureStreams, type StreamBenchResult } from './stream-measure.ts';

const dir = resolve(process.argv.slice(2).find((a) => a !== '--') ?? '');
const rounds = Number(process.env.ROUNDS ?? 5);
const opts = { totalBytes: Number(process.env.MIB ?? 128) << 20, chunkBytes: 64 << 10, rounds: 1 };

type Libs = Parameters<typeof measureStreams>[0];
const other: Libs = {
  core: await import(pathToFileURL(join(dir, 'packages/core/dist/index.js')).href),
  stream: await import(pathToFileURL(join(dir, 'packages/stream/dist/index.js')).href),
};

/** Appends one round's numbers to the running totals. */
function add(into: StreamBenchResult | undefined, round: StreamBenchResult): StreamBenchResult {
  if (!into) return round;
  for (const r of round) into.find((x) => x.case === r.case)!.mbps.push(...r.mbps);
  return into;
}

async function onPage(page: Page): Promise<StreamBenchResult> {
  return page.evaluate(
    async ({ source, opts }) => {
      const fn = new Function(`const __name = (f) => f; return (${source})`)() as typeof measureStreams;
      return fn(globalThis.blake3WebStream!, opts);
    },
    { source: measureStreams.toString(), opts },
  );
}

/** Medians over the rounds; after / before is the median of the per-round ratios, which cancels slow spells both share. */
function table(title: string, before: StreamBenchResult, after: StreamBenchResult): string {
  const lines = [`### ${title}`, '', '| | before MB/s | after MB/s | after / before |', '|:--|--:|--:|--:|'];
  for (const a of after) {
    const b = before.find((x) => x.case === a.case);
    if (!b) continue;
    const ratios = a.mbps.map((x, i) => x / b.mbps[i]);
    lines.push(
      `| ${a.case} | ${median(b.mbps).toFixed(0)} | ${median(a.mbps).toFixed(0)} | ${median(ratios).toFixed(2)} |`,
    );
  }
  return lines.join('\n');
}

const loadBefore = loadavg()[0].toFixed(1);
await core.ready();
await other.core.ready();
const sections: string[] = [];
{
  let before: StreamBenchResult | undefined;
  let after: StreamBenchResult | undefined;
  // The order flips every round: whichever runs second inherits the first one's garbage.
  for (let r = 0; r < rounds; r++) {
    for (const which of r % 2 ? ['before', 'after'] : ['after', 'before']) {
      if (which === 'after') after = add(after, await measureStreams({ core, stream }, opts));
      else before = add(before, await measureStreams(other, opts));
    }
  }
  sections.push(table(`Node ${process.versions.node}`, before!, after!));
}
// Older checkouts kept the servers and pages under e2e/.
const servers = existsSync(join(dir, 'servers/fixture-server.ts')) ? 'servers' : 'e2e/server';
const otherPages = servers === 'servers' ? 'servers/pages' : 'e2e/pages';
const { startFixtureServer: startOther } = (await import(
  pathToFileURL(join(dir, servers, 'fixture-server.ts')).href
)) as { startFixtureServer: typeof startFixtureServer };
for (const engine of ['chromium', 'firefox'] as const) {
  const running = [await startFixtureServer(), await startOther()];
  const browser = await { chromium, firefox }[engine].launch(LAUNCH_OPTIONS[engine]);
  try {
    const pages: Page[] = [];
    for (const [i, server] of running.entries()) {
      const page = await browser.newPage();
      await page.goto(`${server.url}/coi/${i === 0 ? 'servers/pages' : otherPages}/stream.html`);
      await page.waitForFunction(() => globalThis.blake3WebStream !== undefined);
      await page.evaluate(() => globalThis.blake3WebStream!.core.ready());
      pages.push(page);
    }
    let before: StreamBenchResult | undefined;
    let after: StreamBenchResult | undefined;
    // The page measured is brought to the front (a background tab is throttled), and the order
    // flips every round.
    const measure = async (page: Page) => (await page.bringToFront(), onPage(page));
    for (let r = 0; r < rounds; r++) {
      for (const which of r % 2 ? ['before', 'after'] : ['after', 'before']) {
        if (which === 'after') after = add(after, await measure(pages[0]));
        else before = add(before, await measure(pages[1]));
      }
    }
    sections.push(table(`${engine} ${browser.version()}`, before!, after!));
  } finally {
    await browser.close();
    for (const s of running) await s.close();
  }
}
console.log(
  `${sections.join('\n\n')}\n\n${opts.totalBytes >> 20} MiB in 64 KiB chunks, ${rounds} rounds per build, alternating; 1-minute load ${loadBefore} before, ${loadavg()[0].toFixed(1)} after (2 cores).`,
);
