/// <reference path="../../../servers/pages/page-globals.d.ts" />
/// <reference path="../../../servers/pages/worker-globals.d.ts" />
// The read ceiling against the pool, in one run: workers that only read the pool's task ranges
// (16 MiB, handed out two per worker as the pool does) with the engine's best reader and the
// pool's own, then pools of 1-4 hashing the same input, rounds interleaved, medians. Each
// configuration is one call into the page, so the browser's CPU time brackets it: core-seconds
// per GB of reading alone, of reading and hashing, and of the pool. A File from disk (setInputFiles: Chromium
// and Firefox) and an in-memory Blob (all three engines), and the page's long tasks / frame gaps
// during a hash on the default pool. Every round prints a line, so a run cut short still reports.
//   CEILING_MIB=1024 ROUNDS=2 POOLS=1,2,3,4 node_modules/.bin/playwright test -c packages/worker/bench/browsers.config.ts read-ceiling -g File --project=chromium
// READERS=byob,arrayBuffer,stream,sync picks the read-only readers (default: per engine, below);
// READ_WORKERS=2 the read-only worker counts; BLOB_MIB the in-memory Blob's size.
import { blake3, bytesToHex } from '@blake3-web/core';
import { createReadStream, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';

import type { EnginePage } from '../../../servers/engine-page.ts';
import { fixtureUrl } from '../../../servers/engine-page.ts';
import { playwrightEnginePage } from '../../../servers/playwright-engine-page.ts';
import { expect, skipWebKit, test } from '../../../servers/engine-test.ts';

const MiB = 1024 * 1024;
const list = (v: string | undefined) => v?.split(',').filter(Boolean);
const fileMib = Number(process.env.CEILING_MIB ?? 1024);
const blobMib = Number(process.env.BLOB_MIB ?? 96);
const rounds = Number(process.env.ROUNDS ?? 2);
const pools = (list(process.env.POOLS) ?? ['1', '2', '3', '4']).map(Number);
const readWorkers = (list(process.env.READ_WORKERS) ?? ['2']).map(Number);
const path = `/tmp/blake3-web-${fileMib}m.bin`;

/**
 * The readers measured by default: the best one in the last full sweep (docs/worker-pool.md) and
 * the pool's own. Chromium and Firefox: BYOB streams, which the pool uses. WebKit has no byte
 * streams: the pool's 8 MiB slices, and `slice().stream()`, best with 2 workers.
 */
const DEFAULT_READERS: Record<string, string[]> = {
  chromium: ['byob', 'byob+hash'],
  firefox: ['byob', 'byob+hash'],
  webkit: ['arrayBuffer', 'stream', 'arrayBuffer+hash'],
};

type Setup = { source: 'file' | 'blob'; mib: number; pools: number[] };
type Config = { kind: 'read'; method: string; workers: number } | { kind: 'pool'; workers: number };
type Sample = { label: string; workers: number; mbps: number; coreSeconds: number; hex?: string };

/** Runs in the page: builds the input, the pools and the read-only workers' script. */
async function setup({ source, mib, pools }: Setup): Promise<number> {
  const { worker } = globalThis.blake3WebWorker!;
  const M = 1024 * 1024;
  let blob: Blob;
  if (source === 'file') blob = (document.getElementById('file') as HTMLInputElement).files![0];
  else {
    const piece = new Uint8Array(16 * M);
    for (let i = 0; i < piece.length; i++) piece[i] = (i * 31 + (i >>> 11)) % 251;
    blob = new Blob(Array.from({ length: Math.ceil(mib / 16) }, () => piece)).slice(0, mib * M);
  }
  // A read-only worker: reads [a, b) of the Blob with one reader and answers the byte count.
  // `<reader>+hash` also hashes each piece into a subtree hasher, as a pool worker does, but with
  // no messages per task beyond these and nothing to merge: the pool's own ceiling.
  const hazmat = new URL('../../packages/core/dist/hazmat.js', location.href).href;
  const core = new URL('../../packages/core/dist/index.js', location.href).href;
  const workerSource = `
    import { subtreeHasher } from '${hazmat}';
    import { ready } from '${core}';
    await ready();
    const PIECE = 8 * 1024 * 1024;
    const readers = {
      arrayBuffer: async (blob, a, b, use) => {
        for (let p = a; p < b; p += PIECE) use(new Uint8Array(await blob.slice(p, Math.min(b, p + PIECE)).arrayBuffer()));
      },
      stream: async (blob, a, b, use) => {
        const reader = blob.slice(a, b).stream().getReader();
        for (;;) { const { done, value } = await reader.read(); if (done) return; use(value); }
      },
      byob: async (blob, a, b, use) => {
        const reader = blob.slice(a, b).stream().getReader({ mode: 'byob' });
        let buf = new ArrayBuffer(1024 * 1024);
        for (;;) {
          let filled = 0;
          let done = false;
          while (filled < buf.byteLength && !done) {
            const r = await reader.read(new Uint8Array(buf, filled));
            done = r.done;
            if (r.value) { buf = r.value.buffer; filled += r.value.length; }
          }
          if (filled) use(new Uint8Array(buf, 0, filled));
          if (done) return;
        }
      },
      sync: async (blob, a, b, use) => {
        const fr = new FileReaderSync();
        for (let p = a; p < b; p += PIECE) use(new Uint8Array(fr.readAsArrayBuffer(blob.slice(p, Math.min(b, p + PIECE)))));
      },
    };
    onmessage = async (e) => {
      const { id, blob, method, a, b } = e.data;
      const [name, hash] = method.split('+');
      try {
        let n = 0;
        const h = hash ? subtreeHasher(a) : undefined;
        await readers[name](blob, a, b, h ? (bytes) => { n += bytes.length; h.update(bytes); } : (bytes) => { n += bytes.length; });
        if (h && n > 0) h.finalizeNonRoot();
        postMessage({ id, n });
      }
      catch (err) { postMessage({ id, error: String(err && (err.name + ': ' + err.message)) }); }
    };
    postMessage({ ready: true });`;
  const url = URL.createObjectURL(new Blob([workerSource], { type: 'text/javascript' }));
  const created = pools.map((n) => [n, worker.createPool({ size: n })] as const);
  // Workers started and the kernel compiled before anything is timed.
  for (const [, pool] of created) await pool.hashBlob(new Blob([new Uint8Array(4 * M)]));
  (globalThis as unknown as { ceiling: unknown }).ceiling = { blob, url, pools: new Map(created), readWorkers: [] };
  return blob.size;
}

/**
 * Runs in the page: starts the read-only workers of a configuration (their module loaded and
 * the kernel compiled) apart from the call that is timed, as the pool's workers are.
 */
async function startReadWorkers(n: number): Promise<void> {
  const state = (globalThis as unknown as { ceiling: { url: string; readWorkers: Worker[] } }).ceiling;
  const workers = Array.from({ length: n }, () => new Worker(state.url, { type: 'module' }));
  await Promise.all(
    workers.map(
      (w) =>
        new Promise<void>((resolve, reject) => {
          w.onmessage = () => resolve();
          w.onerror = (e) => reject(new Error(`read-only worker failed to start: ${e.message}`));
        }),
    ),
  );
  state.readWorkers = workers;
}

/** Runs in the page: one configuration once, MB/s (and the hash, for pools). */
async function runConfig(config: Config): Promise<{ mbps: number; hex?: string }> {
  const state = (globalThis as unknown as { ceiling: { blob: Blob; pools: Map<number, any>; readWorkers: Worker[] } })
    .ceiling;
  const { blob, pools } = state;
  const TASK = 16 * 1024 * 1024;
  if (config.kind === 'pool') {
    const t0 = performance.now();
    const digest: Uint8Array = await pools.get(config.workers).hashBlob(blob);
    const ms = performance.now() - t0;
    return { mbps: blob.size / 1e3 / ms, hex: globalThis.blake3WebWorker!.core.bytesToHex(digest) };
  }
  const workers = state.readWorkers;
  state.readWorkers = [];
  try {
    let next = 0;
    let id = 0;
    let bytes = 0;
    const lane = (w: Worker) =>
      new Promise<void>((resolve, reject) => {
        const pending = new Set<number>();
        const start = () => {
          if (next >= blob.size) return;
          const a = next;
          next += TASK;
          pending.add(++id);
          w.postMessage({ id, blob, method: config.method, a, b: Math.min(blob.size, a + TASK) });
        };
        w.onmessage = (e) => {
          if (e.data.error) return reject(new Error(e.data.error));
          pending.delete(e.data.id);
          bytes += e.data.n;
          start();
          if (pending.size === 0) resolve();
        };
        start();
        start();
        if (pending.size === 0) resolve();
      });
    const t0 = performance.now();
    await Promise.all(workers.map(lane));
    const ms = performance.now() - t0;
    if (bytes !== blob.size) throw new Error(`read ${bytes} of ${blob.size} bytes`);
    return { mbps: blob.size / 1e3 / ms };
  } finally {
    for (const w of workers) w.terminate();
  }
}

/** Runs in the page: a hash on the default pool, watching the page's thread. */
async function responsiveness() {
  const { core, worker } = globalThis.blake3WebWorker!;
  const { blob, pools } = (
    globalThis as unknown as { ceiling: { blob: Blob; pools: Map<number, { terminate(): void }> } }
  ).ceiling;
  for (const pool of pools.values()) pool.terminate();
  const longTasks: number[] = [];
  let observer: PerformanceObserver | undefined;
  try {
    observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) longTasks.push(e.duration);
    });
    observer.observe({ type: 'longtask', buffered: false });
  } catch {
    observer = undefined;
  }
  let hashing = true;
  let maxFrameGap = 0;
  let maxTimerGap = 0;
  let lastFrame = performance.now();
  let lastTimer = performance.now();
  const frame = (t: number) => {
    maxFrameGap = Math.max(maxFrameGap, t - lastFrame);
    lastFrame = t;
    if (hashing) requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  const tick = () => {
    const now = performance.now();
    maxTimerGap = Math.max(maxTimerGap, now - lastTimer);
    lastTimer = now;
    if (hashing) setTimeout(tick, 0);
  };
  setTimeout(tick, 0);
  const t0 = performance.now();
  const hex = core.bytesToHex(await worker.hashFile(blob));
  const ms = performance.now() - t0;
  hashing = false;
  observer?.disconnect();
  return {
    defaultPoolMbps: Math.round(blob.size / 1e3 / ms),
    longTasks: observer === undefined ? null : longTasks.length,
    longestTaskMs: longTasks.length ? Math.round(Math.max(...longTasks)) : 0,
    maxFrameGapMs: Math.round(maxFrameGap),
    maxTimerGapMs: Math.round(maxTimerGap),
    hex,
  };
}

/**
 * CPU seconds so far of the browser: every process this test process started, and theirs
 * (Chromium's and Firefox's content processes, WebKitWebDriver's MiniBrowser and its web
 * process), from /proc/<pid>/stat in clock ticks (USER_HZ = 100). The machine is shared, so
 * not /proc/stat: others' processes would count.
 */
function browserCpuSeconds(): number {
  const stats = new Map<number, { ppid: number; ticks: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let text: string;
    try {
      text = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // Fields after the command name, which is in parentheses and may hold spaces.
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    stats.set(Number(entry), { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) });
  }
  let ticks = 0;
  const mine = new Set([process.pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, s] of stats) {
      if (!mine.has(pid) && mine.has(s.ppid)) {
        mine.add(pid);
        ticks += s.ticks;
        grew = true;
      }
    }
  }
  return ticks / 100;
}

async function measureAll(page: EnginePage, setupArgs: Setup, readers: string[], source: string) {
  const size = await page.evaluate(setup, setupArgs);
  const configs: Config[] = [
    ...readWorkers.flatMap((workers) => readers.map((method) => ({ kind: 'read' as const, method, workers }))),
    ...pools.map((workers) => ({ kind: 'pool' as const, workers })),
  ];
  const samples: Sample[] = [];
  for (let round = 0; round < rounds; round++) {
    // Alternate the order, so neither end of a round is always the same configuration.
    const order = round % 2 === 0 ? configs : [...configs].reverse();
    const line: string[] = [];
    for (const config of order) {
      const label = config.kind === 'pool' ? `pool of ${config.workers}` : `read ${config.method} ×${config.workers}`;
      if (config.kind === 'read') await page.evaluate(startReadWorkers, config.workers);
      const cpu0 = browserCpuSeconds();
      const { mbps, hex } = await page.evaluate(runConfig, config);
      const coreSeconds = browserCpuSeconds() - cpu0;
      samples.push({ label, workers: config.workers, mbps, coreSeconds, hex });
      line.push(`${label} ${Math.round(mbps)} MB/s ${((coreSeconds / size) * 1e9).toFixed(2)} core-s/GB`);
      console.log(`${page.engine} ${source} round ${round + 1}/${rounds}: ${line.at(-1)}`);
    }
    console.log(`${page.engine} ${source} round ${round + 1}/${rounds}, load ${loadAverage()}: ${line.join('; ')}`);
  }
  const page2 = await page.evaluate(responsiveness);
  const median = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    const m = sorted.length >> 1;
    return sorted.length % 2 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
  };
  const labels = [...new Set(samples.map((s) => s.label))];
  const rows = labels.map((label) => {
    const of = samples.filter((s) => s.label === label);
    return {
      label,
      mbps: Math.round(median(of.map((s) => s.mbps))),
      coreSecondsPerGB: Number(median(of.map((s) => (s.coreSeconds / size) * 1e9)).toFixed(2)),
    };
  });
  // The ceiling: the best read-only rate of 2 workers (read + hash rows are not read-only).
  const best = Math.max(
    ...rows
      .filter((r) => r.label.startsWith('read') && !r.label.includes('+') && r.label.endsWith('×2'))
      .map((r) => r.mbps),
  );
  console.log(
    JSON.stringify({
      engine: page.engine,
      source,
      size,
      load: loadAverage(),
      rows: rows.map((r) => (r.label.startsWith('pool') ? { ...r, ofCeiling: Number((r.mbps / best).toFixed(2)) } : r)),
      page: { ...page2, hex: undefined },
    }),
  );
  return { hexes: samples.flatMap((s) => (s.hex === undefined ? [] : [s.hex])), pageHex: page2.hex };
}

function loadAverage(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

function expectedHex(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hasher = blake3.create();
    createReadStream(file, { highWaterMark: 16 * MiB })
      .on('data', (chunk) => hasher.update(chunk as Uint8Array))
      .on('end', () => resolve(bytesToHex(hasher.digest())))
      .on('error', reject);
  });
}

test.describe('read ceiling', () => {
  test('in-memory Blob', async ({ enginePage }) => {
    test.setTimeout(480_000);
    await enginePage.goto('/servers/pages/worker.html');
    await enginePage.waitForFunction(() => globalThis.blake3WebWorker !== undefined);
    const readers = list(process.env.READERS) ?? DEFAULT_READERS[enginePage.engine];
    const { hexes, pageHex } = await measureAll(enginePage, { source: 'blob', mib: blobMib, pools }, readers, 'blob');
    for (const hex of hexes) expect(hex).toBe(pageHex);
  });
});

test.describe('read ceiling, File', () => {
  skipWebKit('setInputFiles');

  test('File from disk', async ({ page, browserName }) => {
    test.setTimeout(480_000);
    if (!existsSync(path) || statSync(path).size !== fileMib * MiB) {
      const piece = new Uint8Array(fileMib * MiB);
      for (let i = 0; i < piece.length; i++) piece[i] = (i * 31 + (i >>> 11)) % 251;
      writeFileSync(path, piece);
    }
    const expected = await expectedHex(path);
    await page.goto(fixtureUrl('/servers/pages/worker.html'));
    await page.waitForFunction(() => globalThis.blake3WebWorker !== undefined);
    await page.setInputFiles('#file', path);
    const readers = list(process.env.READERS) ?? DEFAULT_READERS[browserName];
    const enginePage = playwrightEnginePage(browserName as 'chromium' | 'firefox', page);
    const { hexes, pageHex } = await measureAll(enginePage, { source: 'file', mib: fileMib, pools }, readers, 'file');
    for (const hex of hexes) expect(hex).toBe(expected);
    expect(pageHex).toBe(expected);
  });
});
