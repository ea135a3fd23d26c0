// Where the wall time of one upload goes, per slice: the page timestamps tus asking for a slice
// and getting it, the request going out, its body sent (XMLHttpRequest's upload `load`), its
// response, and the hashing worker's messages; the server timestamps each PATCH. Variants: tus
// alone to the plain FileStore and to the verifying store, and through the adapter. Not a test.
//   node --import tsx bench/trace-upload.ts [MiB] [rounds] [engine]
import { FileStore } from '@tus/file-store';
import { Server, type DataStore } from '@tus/server';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, firefox } from 'playwright-core';
import { startFixtureServer } from '../../../servers/fixture-server.ts';
import { LAUNCH_OPTIONS } from '../../../scripts/browser-paths.mjs';
import { Blake3FileStore, ROOT_HEADER, verifyBlake3 } from '../src/tus-server.ts';
import { listenTus } from '../test/_tus-server.ts';
import { median, writePaintedFile } from './_bench-file.ts';

const MiB = 1024 * 1024;
const args = process.argv.slice(2).filter((a) => a !== '--');
const size = Number(args[0] ?? 256) * MiB;
const rounds = Number(args[1] ?? 1);
const engine = (args[2] ?? 'chromium') as 'chromium' | 'firefox';
const chunkSize = 8 * MiB;
const VARIANTS = ['plain', 'plain-verifying-store', 'hash'] as const;

/** Server-side times of each PATCH (ms since the server started), shared by the servers here. */
const serverLog: { start: number; end: number }[] = [];
const clock0 = performance.now();

async function startServer(datastore: DataStore, verify = false) {
  const tus = new Server({
    path: '/files',
    datastore,
    allowedHeaders: [ROOT_HEADER],
    ...(verify ? { onUploadFinish: verifyBlake3(datastore as Blake3FileStore) } : {}),
  });
  return listenTus(tus, (req, res) => {
    if (req.method !== 'PATCH') return;
    const entry = { start: performance.now() - clock0, end: 0 };
    serverLog.push(entry);
    res.on('finish', () => (entry.end = performance.now() - clock0));
  });
}

const dirs = ['a', 'b', 'c'].map((d) => mkdtempSync(join(tmpdir(), `blake3-trace-${d}-`)));
const plain = await startServer(new FileStore({ directory: dirs[0] }));
const hashingStore = await startServer(new Blake3FileStore({ directory: dirs[1] }));
const verifyingStore = new Blake3FileStore({ directory: dirs[2] });
const verifying = await startServer(verifyingStore, true);
const fixture = await startFixtureServer();

const filePath = join(dirs[0], '..', `blake3-trace-${process.pid}.bin`);
writePaintedFile(filePath, size);

type Ev = [number, string, number];
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

console.log(
  `${engine}, ${size / MiB} MiB, ${chunkSize / MiB} MiB slices, ${rounds} rounds; load average before: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
const browser = await { chromium, firefox }[engine].launch(LAUNCH_OPTIONS[engine]);
try {
  const page = await browser.newPage();
  await page.goto(`${fixture.url}/servers/pages/upload.html`);
  await page.waitForFunction(() => 'blake3Upload' in globalThis || 'blake3WebError' in globalThis);
  await page.setInputFiles('#file', filePath);
  // tsx keeps function names with a helper the page does not have.
  await page.evaluate('globalThis.__name = (f) => f');
  for (let r = 0; r < rounds; r++) {
    for (const variant of VARIANTS) {
      const endpoint =
        variant === 'plain' ? plain.endpoint : variant === 'hash' ? verifying.endpoint : hashingStore.endpoint;
      serverLog.length = 0;
      const cpu0 = machineCpu();
      const own0 = process.cpuUsage();
      const browser0 = browserCpu();
      const out = await page.evaluate(
        async ({ variant, endpoint, chunkSize }) => {
          type G = {
            blake3Upload: { upload: { blake3Tus(o: object): { options: Record<string, any> } } };
            tus: { Upload: new (f: File, o: object) => { start(): void } };
          };
          const g = globalThis as unknown as G;
          const file = (document.getElementById('file') as HTMLInputElement).files![0];
          const t0 = performance.now();
          const ev: [number, string, number][] = [];
          const mark = (kind: string, at: number) => ev.push([performance.now() - t0, kind, at]);
          let b3: Record<string, any> = {};
          if (variant === 'hash') {
            b3 = g.blake3Upload.upload.blake3Tus({
              checkpoints: null,
              createWorker: () => {
                const w = new Worker(new URL('../../packages/upload/dist/hash-worker.bundle.js', location.href), {
                  type: 'module',
                });
                const post = w.postMessage.bind(w);
                let posted = 0;
                let answered = 0;
                w.postMessage = ((m: unknown, t: Transferable[]) => {
                  mark('post', posted++);
                  post(m, t);
                }) as typeof w.postMessage;
                w.addEventListener('message', () => mark('answer', answered++));
                return w;
              },
            }).options;
          }
          let offset = 0;
          const options: Record<string, unknown> = {
            endpoint,
            chunkSize,
            retryDelays: [],
            ...b3,
            async onBeforeRequest(req: any) {
              if (req.getMethod() !== 'PATCH') return b3.onBeforeRequest?.(req);
              offset = Number(req.getHeader('Upload-Offset'));
              const at = offset;
              mark('before', at);
              await b3.onBeforeRequest?.(req);
              mark('send', at);
              req.getUnderlyingObject().upload.addEventListener('load', () => mark('sent', at));
            },
            async onAfterResponse(req: any, res: any) {
              if (req.getMethod() === 'PATCH') mark('response', offset);
              await b3.onAfterResponse?.(req, res);
            },
          };
          if (b3.fileReader) {
            const inner = b3.fileReader;
            options.fileReader = {
              async openFile(input: Blob, cs: number) {
                const src = await inner.openFile(input, cs);
                return {
                  size: src.size,
                  close: () => src.close(),
                  async slice(s: number, e: number) {
                    mark('slice', s);
                    const out = await src.slice(s, e);
                    mark('sliced', s);
                    return out;
                  },
                };
              },
            };
          }
          const ok = await new Promise((resolve) => {
            new g.tus.Upload(file, {
              ...options,
              onSuccess: () => resolve(true),
              onError: (e: unknown) => resolve(String(e)),
            }).start();
          });
          return { ok, ms: performance.now() - t0, ev };
        },
        { variant, endpoint, chunkSize },
      );
      if (out.ok !== true) throw new Error(`${variant}: ${String(out.ok)}`);
      const cpu1 = machineCpu();
      const own = process.cpuUsage(own0);
      const browserSeconds = browserCpu() - browser0;
      report(variant, out.ms, out.ev as Ev[]);
      console.log(
        `  machine busy ${(((cpu1.busy - cpu0.busy) / (cpu1.total - cpu0.total)) * 100).toFixed(0)}% of 2 cores; ` +
          `server process CPU ${((own.user + own.system) / 1e6).toFixed(2)} s, browser processes ${browserSeconds.toFixed(2)} s`,
      );
    }
  }
} finally {
  await browser.close();
  console.log(
    `load average after: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  await Promise.all([plain.close(), hashingStore.close(), verifying.close(), fixture.close()]);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  rmSync(filePath, { force: true });
}

/** Per slice: the time between a response and the next request, the body's send, the wait for the response. */
function report(variant: string, ms: number, ev: Ev[]): void {
  const at = (kind: string) => new Map(ev.filter((e) => e[1] === kind).map((e) => [e[2], e[0]]));
  const before = at('before');
  const send = at('send');
  const sent = at('sent');
  const response = at('response');
  const slice = at('slice');
  const sliced = at('sliced');
  const offsets = [...before.keys()];
  const between: number[] = [];
  const sliceWait: number[] = [];
  const body: number[] = [];
  const server: number[] = [];
  const rootWait: number[] = [];
  let prev: number | undefined;
  for (const o of offsets) {
    if (prev !== undefined) between.push(before.get(o)! - response.get(prev)!);
    if (slice.has(o)) sliceWait.push(sliced.get(o)! - slice.get(o)!);
    rootWait.push(send.get(o)! - before.get(o)!);
    body.push(sent.get(o)! - send.get(o)!);
    server.push(response.get(o)! - sent.get(o)!);
    prev = o;
  }
  const posts = ev.filter((e) => e[1] === 'post').map((e) => e[0]);
  const answers = ev.filter((e) => e[1] === 'answer').map((e) => e[0]);
  const worker = posts.slice(1, answers.length).map((p, i) => answers[i + 1] - p); // [0] is open()
  const serverMs = serverLog.map((s) => s.end - s.start);
  const f = (xs: number[]) => `${median(xs).toFixed(1)} (sum ${(sum(xs) / 1000).toFixed(2)} s)`;
  console.log(
    `${variant.padEnd(22)} ${(ms / 1000).toFixed(2)} s, ${offsets.length} PATCHes; per slice median: ` +
      `response->next request ${f(between)}, of it in slice() ${f(sliceWait)}; ` +
      `root wait ${f(rootWait)}; body send ${f(body)}; body sent->response ${f(server)}; ` +
      `server PATCH ${f(serverMs)}` +
      (worker.length ? `; worker write post->answer ${f(worker)}` : ''),
  );
}

/** CPU seconds of this process's descendants (the browser's processes), from /proc. */
function browserCpu(): number {
  const stats = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .flatMap((pid) => {
      try {
        // Fields after the command name: state ppid ... utime (12th) stime (13th).
        const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
        return [{ pid: Number(pid), ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) }];
      } catch {
        return []; // gone meanwhile
      }
    });
  const mine = new Set([process.pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const s of stats)
      if (!mine.has(s.pid) && mine.has(s.ppid)) {
        mine.add(s.pid);
        grew = true;
      }
  }
  return stats.filter((s) => s.pid !== process.pid && mine.has(s.pid)).reduce((n, s) => n + s.ticks, 0) / 100;
}

/** Jiffies the machine's cores spent busy and in all, from /proc/stat. */
function machineCpu(): { busy: number; total: number } {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const n = fields.map(Number);
  const total = n.reduce((a, b) => a + b, 0);
  return { busy: total - n[3] - n[4], total };
}
