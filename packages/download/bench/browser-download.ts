// Verified downloads in Chromium and Firefox from mirrors on 127.0.0.1 (servers/range-sources.ts),
// against the same ranges fetched unverified at the same concurrency (servers/pages/download.html's
// `bench`): verified with the bytes dropped and kept in memory, rounds interleaving the three,
// medians and the ratios printed with the load average.
// Then, optionally, the same through the 200 Mbit/s link model of the upload bench (the mirrors'
// answers paced), a download into OPFS with the browser's memory sampled (the RSS of its whole
// process tree, and each kind of process in it: the renderer or tab process holding the page and
// its workers, the network process, the browser's own), beside the same download into a store
// that drops the bytes and the same ranges fetched unverified, and a run where one range arrives with a flipped byte,
// reporting how many bytes were fetched twice. Not a test: numbers come from a quiet machine.
//   node --import tsx packages/download/bench/browser-download.ts [MiB] [rounds] [engines]
//     [parts: local,link,trace,opfs,discard,plain,fresh,reuse,corrupt] [OPFS MiB]
// `trace` runs the three of `link` (or of `local` without it) once per round with each range's
// times taken in the page, and prints where each run's time went: before the first range, each
// mirror's time with no range in flight, the gaps between a range's end and the next request,
// and the time from the last byte to the download's end.
// `fresh` and `reuse` are `plain` read as the download reads a body (256 KiB at a time, BYOB where
// the body is a byte stream), into a fresh buffer per batch or one buffer reused: what reading
// alone costs each way, without verifying or storing.
import { baoEncode } from '@blake3-web/stream';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, firefox, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startFixtureServer } from '../../../servers/fixture-server.ts';
import { startRangeSources, type RangeSources } from '../../../servers/range-sources.ts';
import { LAUNCH_OPTIONS } from '../../../scripts/browser-paths.mjs';
import { startLink } from '../../upload/bench/_link.ts';

const KiB = 1024;
const MiB = 1024 * KiB;
const GROUP = 16 * KiB;
const args = process.argv.slice(2).filter((a) => a !== '--');
const size = Number(args[0] ?? 256) * MiB;
const rounds = Number(args[1] ?? 5);
const engines = (args[2] ?? 'chromium,firefox').split(',') as ('chromium' | 'firefox')[];
const parts = new Set((args[3] ?? 'local,link,opfs,discard,plain,corrupt').split(','));
const opfsSize = Number(args[4] ?? 2048) * MiB;
const concurrency = 4;
const rangeSize = 2 * MiB;
const LINK_BYTES_PER_SECOND = 200e6 / 8;

/** Page times (see `bench` in servers/pages/download.html): plain ranges, or the download's group events. */
type TraceEvent = [number, number, number, number] | [number, string, number, number, number];
type BenchOut = { ms: number; bytes: number; events?: TraceEvent[] };
type BenchPage = { blake3Download?: { bench(o: object): Promise<BenchOut> }; blake3WebError?: string };

const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** Painted content (byte i is i % 251) of `bytes`, its outboard (16 KiB groups) and root. */
function content(bytes: number) {
  const data = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i++) data[i] = i % 251;
  const { hash, encoded } = baoEncode(data, { outboard: true, chunkGroupLog: 4 });
  return { file: { content: data, outboard: encoded }, root: Buffer.from(hash).toString('hex') };
}

/** Resident memory of one process, from /proc/<pid>/status: anonymous, file-backed, shared. */
type Rss = { anon: number; file: number; shmem: number };
const ZERO: Rss = { anon: 0, file: 0, shmem: 0 };
const total = (r: Rss) => r.anon + r.file + r.shmem;

/**
 * What a browser process is, from its command line: Chromium's `--type` (and utility sub-type),
 * Firefox's content process kind (its last argument), else the browser's main process. The page
 * and its dedicated workers run in the renderer (Chromium) or a tab process (Firefox).
 */
function processKind(pid: number): string {
  // Chromium rewrites its processes' titles: the arguments then come joined by spaces.
  const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/).filter(Boolean);
  const type = argv.find((a) => a.startsWith('--type='))?.slice(7);
  if (type) {
    const sub = argv.find((a) => a.startsWith('--utility-sub-type='))?.slice(19);
    return sub ? `${type}:${sub.replace(/\.mojom\./, '.')}` : type;
  }
  if (argv.includes('-contentproc')) return argv.at(-1) ?? 'content';
  return 'main';
}

/**
 * Resident memory of a process's descendants (not the process itself), from /proc (Linux), by
 * kind of process: Playwright starts the browser as a child of this process, so this is the
 * browser's whole tree.
 */
function descendantsRss(pid: number): Map<string, Rss> {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const kinds = new Map<string, Rss>();
  const field = (status: string, name: string) =>
    Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
  const walk = (p: number) => {
    try {
      const status = readFileSync(`/proc/${p}/status`, 'utf8');
      const kind = processKind(p);
      const r = kinds.get(kind) ?? { ...ZERO };
      r.anon += field(status, 'RssAnon');
      r.file += field(status, 'RssFile');
      r.shmem += field(status, 'RssShmem');
      kinds.set(kind, r);
    } catch {
      return;
    }
    for (const c of children.get(p) ?? []) walk(c);
  };
  for (const c of children.get(pid) ?? []) walk(c);
  return kinds;
}

/** Samples the browser's memory every 250 ms: the peak growth of each kind of process and of the whole tree. */
function sampleRss(): {
  stop(): Map<string, Rss & { peak: number; before: number }>;
  whole(): { before: number; peak: number };
} {
  const before = descendantsRss(process.pid);
  const peaks = new Map<string, number>();
  let wholePeak = 0;
  const wholeBefore = [...before.values()].reduce((n, r) => n + total(r), 0);
  let last = before;
  const sample = () => {
    last = descendantsRss(process.pid);
    let sum = 0;
    for (const [kind, r] of last) {
      peaks.set(kind, Math.max(peaks.get(kind) ?? 0, total(r)));
      sum += total(r);
    }
    wholePeak = Math.max(wholePeak, sum);
  };
  sample();
  const timer = setInterval(sample, 250);
  return {
    stop() {
      clearInterval(timer);
      sample();
      // What each kind of process holds now beyond what it held before, and its peak.
      const out = new Map<string, Rss & { peak: number; before: number }>();
      for (const [kind, r] of last) {
        const b = before.get(kind) ?? ZERO;
        out.set(kind, {
          anon: r.anon - b.anon,
          file: r.file - b.file,
          shmem: r.shmem - b.shmem,
          peak: peaks.get(kind) ?? 0,
          before: total(b),
        });
      }
      return out;
    },
    whole: () => ({ before: wholeBefore, peak: wholePeak }),
  };
}

async function openPage(browser: Browser | BrowserContext, url: string): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(`${url}/servers/pages/download.html`);
  await page.waitForFunction(
    () =>
      (globalThis as BenchPage).blake3Download !== undefined || (globalThis as BenchPage).blake3WebError !== undefined,
  );
  const error = await page.evaluate(() => (globalThis as BenchPage).blake3WebError ?? null);
  if (error) throw new Error(error);
  return page;
}

const bench = (page: Page, o: object) => page.evaluate((x) => (globalThis as BenchPage).blake3Download!.bench(x), o);

/**
 * Verified against plain, interleaved (the order turned each round), through `urls`; prints
 * medians and ratios. `plain` reads each range and drops it, so it is set beside `verified,
 * dropped` (download() into a store that drops the bytes: the cost of verifying alone) and beside
 * `verified` (into memoryStore(): the bytes kept and the file's Blob made at the end, as a caller
 * of download() without a store gets it).
 */
async function compare(page: Page, label: string, urls: string[], root: string, bytes: number): Promise<void> {
  const variants = [
    { name: 'plain', o: { variant: 'plain' } },
    { name: 'verified, dropped', o: { variant: 'verified', store: 'discard' } },
    { name: 'verified', o: { variant: 'verified', store: 'memory' } },
  ];
  const ms: Record<string, number[]> = {};
  for (let r = 0; r < rounds; r++)
    for (let i = 0; i < variants.length; i++) {
      const { name, o } = variants[(i + r) % variants.length]!;
      const out = await bench(page, { ...o, sources: urls, root, size: bytes, concurrency, rangeSize });
      if (out.bytes !== bytes) throw new Error(`${label} ${name}: ${out.bytes} bytes of ${bytes}`);
      (ms[name] ??= []).push(out.ms);
    }
  const mbps = (m: number) => (bytes / 1e6 / (m / 1000)).toFixed(0);
  const p = median(ms.plain!);
  const d = median(ms['verified, dropped']!);
  const v = median(ms.verified!);
  console.log(
    `  ${label}: plain ${mbps(p)} MB/s; verified, dropped ${mbps(d)} MB/s, ratio ${(p / d).toFixed(3)}; verified into memory ${mbps(v)} MB/s, ratio ${(p / v).toFixed(3)} (${rounds} rounds, load ${load()})`,
  );
}

/** A range's time in flight: asked, answered (plain) or first verified (verified), ended, source. */
type Span = { asked: number; first: number; ended: number; source: number };

/** The ranges of one traced run (the verified one's single final group apart), in order asked. */
function spans(events: TraceEvent[]): Span[] {
  if (typeof events[0]?.[1] === 'number')
    return (events as [number, number, number, number][]).map(([asked, first, ended, source]) => ({
      asked,
      first,
      ended,
      source,
    }));
  const open = new Map<number, Span & { end: number }>();
  const out: Span[] = [];
  for (const [t, kind, first, count, source] of events as [number, string, number, number, number][]) {
    if (kind === 'requested') open.set(first, { asked: t, first: NaN, ended: NaN, source, end: first + count });
    if (kind !== 'verified') continue;
    for (const [start, r] of open) {
      if (first < start || first >= r.end) continue;
      if (Number.isNaN(r.first)) r.first = t;
      if (first + count === r.end) {
        r.ended = t;
        open.delete(start);
        if (r.end - start > 1) out.push(r);
      }
    }
  }
  return out.sort((a, b) => a.asked - b.asked);
}

/**
 * Where one traced run's time went. Through the link, each mirror's time not carrying (`lost`):
 * from the start to its last byte, less what its bytes (the outboard on the first mirror for a
 * verified run) take at the link's rate.
 */
function traceSummary(name: string, out: BenchOut, linkRate?: number, outboardBytes = 0): string {
  const s = spans(out.events ?? []);
  const start = Math.min(...s.map((r) => r.asked));
  const lastEnd = Math.max(...s.map((r) => r.ended));
  const f = (n: number) => n.toFixed(0);
  const mirrors = [...new Set(s.map((r) => r.source))].sort();
  // Each mirror's time with nothing in flight between the run's first request and its last byte.
  const idle = mirrors.map((m) => {
    const mine = s.filter((r) => r.source === m);
    let busyTo = start;
    let gap = 0;
    for (const r of mine) {
      if (r.asked > busyTo) gap += r.asked - busyTo;
      busyTo = Math.max(busyTo, r.ended);
    }
    return `${f(gap + (lastEnd - busyTo))}`;
  });
  // From a range's end to its slot's next request: the slot is the one whose request came next.
  const ends = s.map((r) => r.ended).sort((a, b) => a - b);
  const asks = s.map((r) => r.asked).slice(concurrency);
  let gaps = 0;
  for (let i = 0; i < asks.length && i < ends.length; i++) gaps += Math.max(0, asks[i] - ends[i]);
  const wait = s.reduce((n, r) => n + (r.first - r.asked), 0) / s.length;
  // The verified download's final group, asked before the ranges are read.
  const final = (out.events ?? []).filter((e) => typeof e[1] === 'string' && e[3] === 1 && e[1] !== 'stored');
  const before = final.length >= 2 ? ` (final group asked at ${f(final[0]![0])}, verified at ${f(final[1]![0])})` : '';
  let lost = '';
  if (linkRate) {
    const verified = typeof out.events?.[0]?.[1] === 'string';
    lost = `; link time lost ${mirrors
      .map((m) => {
        const mine = s.filter((r) => r.source === m);
        const end = Math.max(...mine.map((r) => r.ended));
        const bytes = verified
          ? (out.events as [number, string, number, number, number][])
              .filter((e) => e[1] === 'verified' && e[4] === m)
              .reduce((n, e) => n + e[3] * GROUP, 0) + (m === 0 ? outboardBytes : 0)
          : (size / rangeSize / mirrors.length) * rangeSize;
        return f(end - (bytes / linkRate) * 1000);
      })
      .join(' / ')} ms`;
  }
  return `    ${name}: ${f(out.ms)} ms${lost}; first range asked at ${f(start)}${before}, last byte at ${f(lastEnd)}, end +${f(out.ms - lastEnd)}; mirrors idle ${idle.join(' / ')} ms; range end to next request ${(gaps / asks.length).toFixed(1)} ms mean over ${asks.length}; request to first bytes ${f(wait)} ms mean`;
}

const fixture = await startFixtureServer();
const main = content(size);
const mirrors: RangeSources = await startRangeSources(new Map([['f.bin', main.file]]), 2);
const local = mirrors.urls.map((u) => `${u}f.bin`);
const links = parts.has('link')
  ? await Promise.all(mirrors.urls.map((u) => startLink(u, LINK_BYTES_PER_SECOND, 'downstream')))
  : [];
console.log(
  `${size / MiB} MiB from 2 mirrors, concurrency ${concurrency}, ranges of ${rangeSize / MiB} MiB; load before: ${load()}`,
);
try {
  for (const engine of engines) {
    const browser = await { chromium, firefox }[engine].launch(LAUNCH_OPTIONS[engine]);
    try {
      console.log(engine);
      const page = await openPage(browser, fixture.url);
      if (parts.has('local')) await compare(page, 'local', local, main.root, size);
      if (parts.has('link'))
        await compare(
          page,
          'through a 200 Mbit/s link per mirror',
          links.map((l) => `${l.endpoint}f.bin`),
          main.root,
          size,
        );
      if (parts.has('trace')) {
        const urls = links.length > 0 ? links.map((l) => `${l.endpoint}f.bin`) : local;
        console.log(`  traced, ${links.length > 0 ? 'through the link' : 'local'} (load ${load()}):`);
        const variants = [
          { name: 'plain', o: { variant: 'plain' } },
          { name: 'verified, dropped', o: { variant: 'verified', store: 'discard' } },
          { name: 'verified', o: { variant: 'verified', store: 'memory' } },
        ];
        for (let r = 0; r < rounds; r++)
          for (let i = 0; i < variants.length; i++) {
            const { name, o } = variants[(i + r) % variants.length]!;
            const out = await bench(page, {
              ...o,
              sources: urls,
              root: main.root,
              size,
              concurrency,
              rangeSize,
              trace: true,
            });
            const linked = links.length > 0 ? LINK_BYTES_PER_SECOND : undefined;
            console.log(traceSummary(name, out, linked, main.file.outboard.length));
          }
      }
      if (parts.has('corrupt')) {
        mirrors.resetCounters();
        // A byte three quarters into the first range asked of the first mirror: the groups
        // before it verify and are kept, so only the rest of the range is fetched again.
        const flipAt = (3 * rangeSize) / 4 + 1234;
        const kept = Math.floor(flipAt / GROUP) * GROUP;
        mirrors.setBehaviour(0, { fault: (n) => (n === 0 ? 'flip' : undefined), flipAt: () => flipAt });
        const out = await bench(page, {
          variant: 'verified',
          sources: local,
          root: main.root,
          size,
          concurrency,
          rangeSize,
        });
        mirrors.setBehaviour(0, {});
        const fetched = mirrors.counters[0].contentBytes + mirrors.counters[1].contentBytes;
        console.log(
          `  one flipped byte: ${out.bytes === size ? 'the content' : 'WRONG SIZE'}, ${fetched - size} bytes fetched twice (${((fetched - size) / 1024).toFixed(0)} KiB; bound: a range of ${rangeSize / KiB} KiB less the ${kept / KiB} KiB verified before the flip = ${(rangeSize - kept) / KiB} KiB)`,
        );
      }
      for (const kind of ['opfs', 'discard', 'plain', 'fresh', 'reuse'] as const) {
        if (!parts.has(kind)) continue;
        // A profile on disk: a plain launch's pages are off the record, where the engine keeps
        // the origin's files (OPFS included) in memory.
        const profile = mkdtempSync(join(tmpdir(), 'blake3-download-bench-profile-'));
        const context = await { chromium, firefox }[engine].launchPersistentContext(profile, LAUNCH_OPTIONS[engine]);
        try {
          const page = await openPage(context, fixture.url);
          const big = opfsSize === size ? main : content(opfsSize);
          const sources = opfsSize === size ? mirrors : await startRangeSources(new Map([['f.bin', big.file]]), 2);
          const rss = sampleRss();
          const out = await bench(page, {
            variant: kind === 'opfs' || kind === 'discard' ? 'verified' : kind,
            sources: sources.urls.map((u) => `${u}f.bin`),
            root: big.root,
            size: opfsSize,
            concurrency,
            rangeSize,
            store: kind,
          });
          const kinds = rss.stop();
          const whole = rss.whole();
          if (sources !== mirrors) await sources.close();
          const what = {
            opfs: 'into OPFS',
            discard: 'into a store that drops them (the engine alone)',
            plain: 'fetched unverified and dropped (fetch alone)',
            fresh: "fetched unverified, read in the download's batches into a fresh buffer each",
            reuse: "fetched unverified, read in the download's batches into one buffer per request",
          }[kind];
          const bound = (concurrency * rangeSize) / MiB + 16;
          console.log(
            `  ${opfsSize / MiB} MiB ${what}: ${(opfsSize / 1e6 / (out.ms / 1000)).toFixed(0)} MB/s; the browser's RSS peaked ${((whole.peak - whole.before) / MiB).toFixed(0)} MiB above its ${(whole.before / MiB).toFixed(0)} MiB (bound for the page and its workers: concurrency x range + 16 MiB = ${bound} MiB)`,
          );
          const mib = (n: number) => (n / MiB).toFixed(0);
          for (const [k, r] of [...kinds].sort((x, y) => y[1].peak - y[1].before - (x[1].peak - x[1].before)))
            console.log(
              `    ${k}: peak +${mib(r.peak - r.before)} MiB over ${mib(r.before)}; at the end anonymous ${mib(r.anon)}, file-backed ${mib(r.file)}, shared ${mib(r.shmem)} MiB more than before`,
            );
          if (engine === 'chromium') {
            // Memory the engine gives back when told memory is short is a cache, not a leak.
            const cdp = await context.newCDPSession(page);
            await cdp.send('HeapProfiler.collectGarbage');
            const browserCdp = await context.browser()?.newBrowserCDPSession();
            await (browserCdp ?? cdp).send(
              'Memory.simulatePressureNotification' as never,
              { level: 'critical' } as never,
            );
            await new Promise((r) => setTimeout(r, 3000));
            const after = descendantsRss(process.pid);
            console.log(
              `    after a critical memory-pressure signal and 3 s: ${[...after].map(([k, r]) => `${k} ${mib(total(r))}`).join(', ')} MiB`,
            );
          }
        } finally {
          await context.close();
          rmSync(profile, { recursive: true, force: true });
        }
      }
    } finally {
      await browser.close();
    }
  }
} finally {
  await Promise.all(links.map((l) => l.close()));
  await mirrors.close();
  await fixture.close();
}
