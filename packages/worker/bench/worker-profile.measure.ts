/// <reference path="../../../servers/pages/page-globals.d.ts" />
/// <reference path="../../../servers/pages/worker-globals.d.ts" />
// Where one worker's time goes on a 16 MiB task of an in-memory Blob: reading alone (BYOB 1 MiB
// pieces, or 8 MiB slices where Blob streams are not byte streams), hashing alone (bytes already
// in memory), the copy into the kernel's memory alone, one message round trip carrying the Blob,
// and reading + hashing in turn against overlapped (the next piece read while this one hashes),
// with pieces of 1-4 MiB. One worker, tasks one after another, medians of ms per task.
//   PROFILE_MIB=16 ROUNDS=7 node_modules/.bin/playwright test -c packages/worker/bench/browsers.config.ts worker-profile
import { readFileSync } from 'node:fs';

import { test } from '../../../servers/engine-test.ts';

const mib = Number(process.env.PROFILE_MIB ?? 16);
const rounds = Number(process.env.ROUNDS ?? 7);

/** Runs in the page. */
async function profile({ mib, rounds }: { mib: number; rounds: number }) {
  const M = 1024 * 1024;
  const piece = new Uint8Array(16 * M);
  for (let i = 0; i < piece.length; i++) piece[i] = (i * 31 + (i >>> 11)) % 251;
  const blob = new Blob(Array.from({ length: Math.ceil(mib / 16) }, () => piece)).slice(0, mib * M);
  const hazmat = new URL('../../packages/core/dist/hazmat.js', location.href).href;
  const core = new URL('../../packages/core/dist/index.js', location.href).href;
  const source = `
    import { subtreeHasher } from '${hazmat}';
    import { ready } from '${core}';
    await ready();
    const M = 1024 * 1024;
    const TASK = 16 * M;
    let byob;
    try { new Blob([]).stream().getReader({ mode: 'byob' }).releaseLock(); byob = true; } catch { byob = false; }
    // Yields the range's bytes piece by piece into buffers it reuses; with 'ahead' the next read is
    // asked for before the caller works on the current piece (two buffers).
    async function* pieces(blob, a, b, size, ahead) {
      if (!byob) {
        for (let p = a; p < b; p += 8 * M) yield new Uint8Array(await blob.slice(p, Math.min(b, p + 8 * M)).arrayBuffer());
        return;
      }
      const reader = blob.slice(a, b).stream().getReader({ mode: 'byob' });
      const fill = async (buf) => {
        let filled = 0;
        while (filled < buf.byteLength) {
          const { done, value } = await reader.read(new Uint8Array(buf, filled));
          reads++;
          if (done) return new Uint8Array(value ? value.buffer : buf, 0, filled);
          buf = value.buffer;
          filled += value.length;
        }
        return new Uint8Array(buf, 0, filled);
      };
      let bufs = [new ArrayBuffer(size), new ArrayBuffer(size)];
      let left = b - a;
      let next = fill(new ArrayBuffer(Math.min(size, left)));
      while (left > 0) {
        const got = await next;
        left -= got.length;
        if (got.length === 0) throw new Error('short');
        if (ahead && left > 0) next = fill(new ArrayBuffer(Math.min(size, left)));
        yield got;
        if (!ahead && left > 0) next = fill(new ArrayBuffer(Math.min(size, left)));
      }
    }
    let reads = 0;
    const kernelCopy = new Uint8Array(64 * 1024);
    const work = {
      read: async (blob, a, b) => { for await (const p of pieces(blob, a, b, M, false)); },
      // The kernel's input window is 64 KiB: reading straight into it means reads of this size.
      'read 64 KiB': async (blob, a, b) => { for await (const p of pieces(blob, a, b, 64 * 1024, false)); },
      'read 4 MiB': async (blob, a, b) => { for await (const p of pieces(blob, a, b, 4 * M, false)); },
      hash: async (blob, a, b, mem) => {
        const h = subtreeHasher(a);
        for (let p = 0; p < b - a; p += M) h.update(mem.subarray(p, p + M));
        h.finalizeNonRoot();
      },
      copy: async (blob, a, b, mem) => {
        for (let p = 0; p < b - a; p += 65536) kernelCopy.set(mem.subarray(p, p + 65536));
      },
      message: async () => {},
    };
    for (const size of [1, 2, 4]) {
      for (const ahead of [false, true]) {
        work['read+hash ' + size + ' MiB' + (ahead ? ' overlapped' : '')] = async (blob, a, b) => {
          const h = subtreeHasher(a);
          for await (const p of pieces(blob, a, b, size * M, ahead)) h.update(p);
          h.finalizeNonRoot();
        };
      }
    }
    let mem;
    onmessage = async (e) => {
      const { kind, blob, a, b } = e.data;
      if (kind === 'names') return postMessage({ names: Object.keys(work), byob });
      mem ??= new Uint8Array(await blob.slice(0, TASK).arrayBuffer());
      reads = 0;
      const t0 = performance.now();
      try {
        await work[kind](blob, a, b, mem);
        postMessage({ ms: performance.now() - t0, reads });
      } catch (err) {
        postMessage({ error: kind + ': ' + err.name + ': ' + err.message });
      }
    };`;
  const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  const w = new Worker(url, { type: 'module' });
  const ask = (data: object) => {
    const answer = new Promise<any>((resolve, reject) => {
      w.onmessage = (e) => resolve(e.data);
      w.onerror = (e) => reject(new Error(e.message));
    });
    w.postMessage(data);
    return answer;
  };
  const { names, byob } = await ask({ kind: 'names' });
  const TASK = 16 * M;
  const samples: Record<string, number[]> = {};
  const readCalls: Record<string, number> = {};
  const errors: Record<string, string> = {};
  for (let round = 0; round < rounds; round++) {
    for (const kind of round % 2 ? [...names].reverse() : names) {
      for (let a = 0; a < blob.size; a += TASK) {
        const t0 = performance.now();
        const { ms, reads, error } = await ask({ kind, blob, a, b: Math.min(blob.size, a + TASK) });
        if (error) {
          errors[kind] = error;
          continue;
        }
        if (reads) readCalls[kind] = reads;
        const total = performance.now() - t0;
        (samples[kind] ??= []).push(kind === 'message' ? total : ms);
      }
    }
  }
  w.terminate();
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  return {
    byob,
    readCallsPerTask: readCalls,
    errors,
    msPerTask: Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, Number(median(v).toFixed(2))])),
  };
}

test('one worker, where a 16 MiB task goes', async ({ enginePage }) => {
  test.setTimeout(Number(process.env.TIMEOUT_MS ?? 300_000));
  await enginePage.goto('/servers/pages/worker.html');
  await enginePage.waitForFunction(() => globalThis.blake3WebWorker !== undefined);
  const r = await enginePage.evaluate(profile, { mib, rounds });
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(JSON.stringify({ engine: enginePage.engine, load, ...r }));
});
