#!/usr/bin/env node
// Measures the pool on a large file (built package: run `pnpm build` first).
//   node bench/measure-pool.mjs [--file /tmp/blake3-web-1g.bin] [--mib 1024] [--rounds 3]
// Every configuration runs in its own process (so peak RSS is its own), rounds interleaved,
// medians reported. The page cache is warmed first: this measures hashing, not the disk.
import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    file: { type: 'string', default: '/tmp/blake3-web-1g.bin' },
    mib: { type: 'string', default: '1024' },
    rounds: { type: 'string', default: '3' },
    only: { type: 'string' },
    run: { type: 'string' },
    // Another build of the package (e.g. main's dist copied under packages/worker/) to measure beside this one.
    baseline: { type: 'string' },
  },
});
const MiB = 1024 * 1024;
const file = values.file;
const rounds = Number(values.rounds);

if (values.run) {
  // Child: one configuration, prints one JSON line.
  const config = JSON.parse(values.run);
  const { backend } = await import('@blake3-web/core');
  const t0 = performance.now();
  let hex;
  let tasks = 0;
  if (config.kind === 'single') {
    // One thread: the core's incremental hasher over 16 MiB reads, as an app without workers would.
    const { blake3, bytesToHex } = await import('@blake3-web/core');
    const { open } = await import('node:fs/promises');
    const fh = await open(file, 'r');
    const hasher = blake3.create();
    const buf = new Uint8Array(16 * MiB);
    for (let pos = 0; ;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) break;
      hasher.update(buf.subarray(0, bytesRead));
      pos += bytesRead;
    }
    await fh.close();
    hex = bytesToHex(hasher.digest());
  } else if (config.kind === 'one-shot') {
    // The goal's yardstick: blake3() of 1 MiB already in memory, on one thread.
    const { blake3 } = await import('@blake3-web/core');
    const buf = new Uint8Array(MiB).fill(7);
    for (let i = 0; i < 64; i++) blake3(buf);
    const h0 = performance.now();
    for (let i = 0; i < 1024; i++) blake3(buf);
    const ms = performance.now() - h0;
    console.log(JSON.stringify({ ...config, ms, mbps: (1024 * MiB) / 1e6 / (ms / 1e3), backend: backend() }));
    process.exit(0);
  } else if (config.kind === 'ceiling') {
    // The read ceiling: `size` workers read (and with hash, hash) the pool's task ranges, taking
    // task numbers from a shared counter: no messages per task, no merging.
    const { Worker } = await import('node:worker_threads');
    const counter = new SharedArrayBuffer(4);
    const size = statSync(file).size;
    const workers = Array.from(
      { length: config.size },
      () =>
        new Worker(new URL('./_ceiling-worker.mjs', import.meta.url), {
          workerData: {
            file,
            size,
            task: config.subtree,
            piece: config.piece,
            hash: config.hash,
            reader: config.reader,
            counter,
          },
        }),
    );
    await Promise.all(
      workers.map((w) => new Promise((resolve, reject) => (w.once('message', resolve), w.once('error', reject)))),
    );
    tasks = Math.ceil(size / config.subtree);
  } else if (config.kind === 'hash-only') {
    // Pure hashing speed of hashSubtree on one in-memory subtree, no I/O, no threads.
    const { hashSubtree } = await import('@blake3-web/core/hazmat');
    const buf = new Uint8Array(config.subtree).fill(7);
    hashSubtree(buf, 0);
    const reps = Math.max(1, Math.round((256 * MiB) / config.subtree));
    const h0 = performance.now();
    for (let i = 0; i < reps; i++) hashSubtree(buf, i * config.subtree);
    const ms = performance.now() - h0;
    console.log(JSON.stringify({ ...config, mbps: (reps * config.subtree) / 1e6 / (ms / 1e3), backend: backend() }));
    process.exit(0);
  } else if (config.kind === 'roundtrip') {
    // One task straight to a worker, bypassing the pool's inline path: message out, hash,
    // message back; against hashing the same bytes on this thread.
    const { wrap, transfer } = await import('comlink');
    const { default: nodeEndpoint } = await import('comlink/dist/esm/node-adapter.mjs');
    const { Worker } = await import('node:worker_threads');
    const { blake3 } = await import('@blake3-web/core');
    const worker = new Worker(new URL('../dist/worker-node.js', import.meta.url));
    const api = wrap(nodeEndpoint(worker));
    const bytes = new Uint8Array(config.bytes).fill(1);
    const task = () => {
      const copy = bytes.slice();
      return transfer(
        { source: { kind: 'bytes', bytes: copy }, start: 0, end: copy.length, output: 'root', opts: {} },
        [copy.buffer],
      );
    };
    for (let i = 0; i < 50; i++) await api.hashRange(task());
    const n = 500;
    const w0 = performance.now();
    for (let i = 0; i < n; i++) await api.hashRange(task());
    const perCall = (performance.now() - w0) / n;
    for (let i = 0; i < 50; i++) blake3(bytes);
    const i0 = performance.now();
    for (let i = 0; i < n; i++) blake3(bytes);
    const inline = (performance.now() - i0) / n;
    await worker.terminate();
    console.log(JSON.stringify({ ...config, perCallMs: perCall, inlineMs: inline }));
    process.exit(0);
  } else {
    const { createPool } = await import(
      config.baseline ? new URL(`../${config.baseline}/index-node.js`, import.meta.url).href : '@blake3-web/worker'
    );
    const { bytesToHex } = await import('@blake3-web/core');
    const pool = createPool({ size: config.size, subtreeBytes: config.subtree });
    const input = config.kind === 'pool-blob' ? await (await import('node:fs')).openAsBlob(file) : file;
    hex = bytesToHex(await pool.hashFile(input, { onProgress: () => tasks++ }));
    pool.terminate();
  }
  const ms = performance.now() - t0;
  const size = statSync(file).size;
  const usage = process.resourceUsage();
  console.log(
    JSON.stringify({
      ...config,
      ms,
      mbps: size / 1e6 / (ms / 1e3),
      tasks,
      hex,
      backend: backend(),
      maxRssMiB: usage.maxRSS / 1024,
      cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1e3,
    }),
  );
  process.exit(0);
}

// Parent.
if (!existsSync(file) || statSync(file).size !== Number(values.mib) * MiB) {
  const out = createWriteStream(file);
  const piece = new Uint8Array(16 * MiB);
  for (let i = 0; i < piece.length; i++) piece[i] = (i * 31 + (i >>> 11)) % 251;
  for (let i = 0; i < (Number(values.mib) * MiB) / piece.length; i++) {
    piece[0] = i;
    if (!out.write(piece)) await new Promise((r) => out.once('drain', r));
  }
  await new Promise((r) => out.end(r));
}
spawnSync('cat', [file], { stdio: ['ignore', 'ignore', 'inherit'] });

const script = fileURLToPath(import.meta.url);
const ceiling = (size, extra) => ({
  kind: 'ceiling',
  size,
  subtree: 16 * MiB,
  piece: MiB,
  hash: false,
  reader: 'sync',
  ...extra,
});
const configs = [
  { kind: 'one-shot' },
  { kind: 'single' },
  ...[1, 2, 3, 4].map((size) => ceiling(size)),
  ...[1, 2].map((size) => ceiling(size, { reader: 'async' })),
  ...[1, 2, 3, 4].map((size) => ceiling(size, { hash: true })),
  ...[1, 2].map((size) => ceiling(size, { hash: true, reader: 'async' })),
  ceiling(2, { hash: true, piece: 2 * MiB }),
  ceiling(2, { hash: true, piece: 256 * 1024 }),
  ...[1, 2, 3, 4].map((size) => ({ kind: 'pool-path', size, subtree: 16 * MiB })),
  { kind: 'pool-path', size: 2, subtree: 8 * MiB },
  { kind: 'pool-blob', size: 2, subtree: 16 * MiB },
  ...[1, 4, 8, 64].map((s) => ({ kind: 'pool-path', size: 1, subtree: s * MiB })),
  ...[1, 4, 16, 64].map((s) => ({ kind: 'hash-only', subtree: s * MiB })),
  ...[1024, 16 * 1024, 64 * 1024, 256 * 1024, 1024 * 1024].map((bytes) => ({ kind: 'roundtrip', bytes })),
  ...(values.baseline
    ? [1, 2].map((size) => ({ kind: 'pool-path', size, subtree: 16 * MiB, baseline: values.baseline }))
    : []),
].filter((c) => !values.only || values.only.split('|').some((part) => JSON.stringify(c).includes(part)));

const results = new Map();
const load = [loadavg()[0]];
for (let r = 0; r < rounds; r++) {
  for (const config of configs) {
    const res = spawnSync(process.execPath, [script, '--file', file, '--run', JSON.stringify(config)], {
      encoding: 'utf8',
      cwd: fileURLToPath(new URL('..', import.meta.url)),
    });
    if (res.status !== 0) throw new Error(`${JSON.stringify(config)} failed: ${res.stderr}`);
    const row = JSON.parse(res.stdout.trim().split('\n').pop());
    const key = JSON.stringify(config);
    results.set(key, [...(results.get(key) ?? []), row]);
  }
  load.push(loadavg()[0]);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const hexes = new Set();
const summary = [];
for (const rows of results.values()) {
  const out = { ...rows[0] };
  for (const k of ['ms', 'mbps', 'maxRssMiB', 'cpuMs', 'perCallMs', 'inlineMs'])
    if (k in out) out[k] = median(rows.map((x) => x[k]));
  if (out.hex) hexes.add(out.hex);
  delete out.hex;
  summary.push(out);
  console.log(JSON.stringify(out));
}
// Per-task overhead: least squares of time against the number of tasks over the subtree sweep
// (pool of 1, same bytes), so the slope is what one more task costs.
const sweep = summary.filter((r) => r.kind === 'pool-path' && r.size === 1);
if (sweep.length >= 2) {
  const fit = (key) => {
    const n = sweep.length;
    const mx = sweep.reduce((a, r) => a + r.tasks, 0) / n;
    const my = sweep.reduce((a, r) => a + r[key], 0) / n;
    const sxy = sweep.reduce((a, r) => a + (r.tasks - mx) * (r[key] - my), 0);
    const sxx = sweep.reduce((a, r) => a + (r.tasks - mx) ** 2, 0);
    const slope = sxy / sxx;
    return { perTaskMs: slope, intercept: my - slope * mx };
  };
  console.log(JSON.stringify({ perTaskOverhead: { wall: fit('ms'), cpu: fit('cpuMs') } }));
}
console.log(
  JSON.stringify({
    sameHashEverywhere: hexes.size === 1,
    loadAverage1m: load,
    date: new Date().toISOString(),
    node: process.version,
  }),
);
