// What checking a resumed upload against its checkpoint costs, in Node: a file on disk is
// uploaded through the adapter to the verifying @tus/server on 127.0.0.1 until the server holds
// about half of it, then resumed from its URL with the saved checkpoint. Printed per round: the
// time from the resume's start to its first PATCH (the part the server holds is read and hashed
// again first: the check), the whole resume, and the bytes read for the hash. The hasher runs on
// a worker thread (the built package: run `build` first), as a page's runs in a Web Worker. Not a test.
//   node --import tsx bench/resume-check.ts [MiB] [rounds]
import { mkdtempSync, openAsBlob, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { Upload, type UploadOptions } from 'tus-js-client';
import { blake3Tus, type Checkpoint, type HasherEndpoint } from '../src/index.ts';
import { memoryStore } from '../test/_in-thread.ts';
import { startTusServer } from '../test/_tus-server.ts';
import { median, writePaintedFile } from './_bench-file.ts';

const MiB = 1024 * 1024;
const args = process.argv.slice(2).filter((a) => a !== '--');
const size = Number(args[0] ?? 384) * MiB;
const rounds = Number(args[1] ?? 3);
const chunkSize = 8 * MiB;

const workers: Worker[] = [];
function createWorker(): HasherEndpoint {
  const worker = new Worker(new URL('./_hasher-thread.mjs', import.meta.url));
  workers.push(worker);
  // The thread's messages as a Web Worker's 'message' events (WorkerHasher also listens for
  // 'error', which comlink's node adapter would hand every message).
  const wrapped = new Map<unknown, (data: unknown) => void>();
  return {
    postMessage: (message: unknown, transfer?: Transferable[]) => worker.postMessage(message, transfer as never),
    addEventListener(type: string, listener: EventListenerOrEventListenerObject) {
      if (type !== 'message') return;
      const call = (data: unknown) =>
        typeof listener === 'function'
          ? listener({ data } as MessageEvent)
          : listener.handleEvent({ data } as MessageEvent);
      wrapped.set(listener, call);
      worker.on('message', call);
    },
    removeEventListener(_type: string, listener: EventListenerOrEventListenerObject) {
      const call = wrapped.get(listener);
      if (call) worker.off('message', call);
    },
  } as HasherEndpoint;
}

const dir = mkdtempSync(join(tmpdir(), 'blake3-resume-'));
const path = join(dir, 'file.bin');
writePaintedFile(path, size);
const file = await openAsBlob(path);
const server = await startTusServer();

type Run = { url: string | null; firstPatchMs: number; totalMs: number; bytesRead: number; ok: boolean };

function upload(store: ReturnType<typeof memoryStore>, uploadUrl?: string, stopAt?: number): Promise<Run> {
  const b3 = blake3Tus({ createWorker, checkpoints: store, readInWorker: false });
  const t0 = performance.now();
  let firstPatchMs = NaN;
  return new Promise((resolve) => {
    const done = (ok: boolean) =>
      resolve({ url: up.url, firstPatchMs, totalMs: performance.now() - t0, bytesRead: b3.bytesRead, ok });
    const up: Upload = new Upload(
      file as unknown as File,
      {
        endpoint: server.endpoint,
        chunkSize,
        retryDelays: [0],
        ...(uploadUrl ? { uploadUrl } : {}),
        ...b3.options,
        async onBeforeRequest(req) {
          await b3.options.onBeforeRequest(req);
          if (req.getMethod() === 'PATCH' && Number.isNaN(firstPatchMs)) firstPatchMs = performance.now() - t0;
        },
        onChunkComplete(_chunk, accepted) {
          if (stopAt !== undefined && accepted >= stopAt) void up.abort().then(() => done(false));
        },
        onSuccess: () => done(true),
        onError: (e) => {
          console.error(String(e));
          done(false);
        },
      } as UploadOptions,
    );
    up.start();
  });
}

const resumes: Run[] = [];
try {
  for (let r = 0; r < rounds; r++) {
    const store = memoryStore();
    const first = await upload(store, undefined, size / 2);
    const saved = [...store.map.values()][0] as Checkpoint;
    const resumed = await upload(store, first.url!);
    if (!resumed.ok) throw new Error('the resume did not end verified');
    resumes.push(resumed);
    console.log(
      `round ${r + 1}: first half uploaded in ${first.totalMs.toFixed(0)} ms; checkpoint at ${(saved.offset / MiB).toFixed(1)} MiB; first PATCH after ${resumed.firstPatchMs.toFixed(0)} ms, resume ${resumed.totalMs.toFixed(0)} ms, ${(resumed.bytesRead / MiB).toFixed(1)} MiB read for the hash; load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  }
  console.log(
    `${size / MiB} MiB, median of ${rounds}: first PATCH after ${median(resumes.map((r) => r.firstPatchMs)).toFixed(0)} ms, resume ${median(resumes.map((r) => r.totalMs)).toFixed(0)} ms`,
  );
} finally {
  await Promise.all(workers.map((w) => w.terminate()));
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
