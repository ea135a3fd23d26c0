#!/usr/bin/env node
// Throughput of Bao verification beside plain BLAKE3 streaming, in Node, on the built package:
// a 64 MiB content streamed in 64 KiB pieces (as fetch bodies arrive), every case run in each
// round in rotating order, medians of MB/s of content. Numbers for docs/bao.md.
//
// Both clocks are reported: wall time, and the process's CPU time, which is steadier on a
// shared, saturated machine (other processes steal wall time, not CPU time).
//
// Two bare pipelines per write size give the floor under any stream: a TransformStream that
// forwards each write, and one that forwards a copy (a verifier must copy: the writer may reuse
// its buffer). One-shot hashing plus the copying floor is the best a verifying stream can do at
// that write size; the last column is each stream case against that.
//
// Usage: node scripts/measure-bao.mjs [rounds=7] [MiB=64]   (after `pnpm --filter @blake3-web/stream run build`)
import { backend, blake3, bytesToHex } from '@blake3-web/core';
import {
  baoDecode,
  baoEncode,
  baoEncodedSize,
  baoEncodeInto,
  BaoEncoder,
  BaoVerifyStream,
  Blake3Stream,
} from '@blake3-web/stream';
import { availableParallelism, cpus, loadavg } from 'node:os';

const rounds = Number(process.argv[2] ?? 7);
const total = Number(process.argv[3] ?? 64) * 2 ** 20;
const piece = 64 * 1024;

const data = new Uint8Array(total);
for (let i = 0; i < total; i++) data[i] = i % 251;
const expected = bytesToHex(blake3(data));
const combined = baoEncode(data).encoded;
const outboard = baoEncode(data, { outboard: true }).encoded;
const grouped = baoEncode(data, { chunkGroupLog: 4 }).encoded;
const groupedOutboard = baoEncode(data, { chunkGroupLog: 4, outboard: true }).encoded;
const MiB = 2 ** 20;
const encodeOut = new Uint8Array(baoEncodedSize(total));

const source = (bytes, size = piece) => {
  let at = 0;
  return new ReadableStream(
    {
      pull(c) {
        if (at >= bytes.length) c.close();
        else c.enqueue(bytes.subarray(at, (at += size)));
      },
    },
    { highWaterMark: 0 },
  );
};

/** Reads to the end and hashes what came out, so a case that drops or alters bytes fails. */
const drain = async (readable) => {
  const reader = readable.getReader();
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.length;
  }
  if (n !== total) throw new Error(`released ${n} bytes, expected ${total}`);
};

/** The same with a BYOB reader that brings one reused buffer of `size` bytes. */
const drainByob = async (readable, size = MiB) => {
  const reader = readable.getReader({ mode: 'byob' });
  let buffer = new ArrayBuffer(size);
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read(new Uint8Array(buffer));
    if (done) break;
    n += value.length;
    buffer = value.buffer;
  }
  if (n !== total) throw new Error(`released ${n} bytes, expected ${total}`);
};

const forward = (size, copy) =>
  drain(
    source(data, size).pipeThrough(new TransformStream({ transform: (c, ctl) => ctl.enqueue(copy ? c.slice() : c) })),
  );

/** The verified stream of each encoding, read by both kinds of reader in the cases below. */
const verify = (bytes, size, opts) => source(bytes, size).pipeThrough(new BaoVerifyStream(expected, opts));
const grouping = { chunkGroupLog: 4 };
const verified = {
  combined: () => verify(combined),
  'outboard bytes': () => verify(data, piece, { outboard }),
  'combined, 1 MiB writes': () => verify(combined, MiB),
  'outboard bytes, 1 MiB writes': () => verify(data, MiB, { outboard }),
  'chunkGroupLog 4': () => verify(grouped, piece, grouping),
  'chunkGroupLog 4, outboard': () => verify(data, piece, { ...grouping, outboard: groupedOutboard }),
  'chunkGroupLog 4, 1 MiB writes': () => verify(grouped, MiB, grouping),
  'chunkGroupLog 4, outboard, 1 MiB writes': () => verify(data, MiB, { ...grouping, outboard: groupedOutboard }),
};

const cases = {
  'blake3() one-shot': async () => void blake3(data),
  'TransformStream, forwarding': () => forward(piece, false),
  'TransformStream, copying': () => forward(piece, true),
  'TransformStream, copying, 1 MiB writes': () => forward(MiB, true),
  Blake3Stream: async () => {
    const s = new Blake3Stream();
    await drain(source(data).pipeThrough(s));
    if (bytesToHex(await s.digest) !== expected) throw new Error('Blake3Stream digest');
  },
  ...Object.fromEntries(
    Object.entries(verified).map(([name, stream]) => [`BaoVerifyStream (${name})`, () => drain(stream())]),
  ),
  ...Object.fromEntries(
    Object.entries(verified).map(([name, stream]) => [`BaoVerifyStream (${name}, BYOB)`, () => drainByob(stream())]),
  ),
  'baoDecode (in memory, combined)': async () => {
    if (baoDecode(combined, expected).length !== total) throw new Error('baoDecode length');
  },
  'baoEncode (combined)': async () => void baoEncode(data),
  'baoEncodeInto (combined, reused buffer)': async () => void baoEncodeInto(data, encodeOut),
  'BaoEncoder (outboard, 64 KiB updates)': async () => {
    const e = new BaoEncoder();
    for (let i = 0; i < total; i += piece) e.update(data.subarray(i, i + piece));
    if (bytesToHex(e.finalize().hash) !== expected) throw new Error('BaoEncoder hash');
  },
};

const names = Object.keys(cases);
const mbps = names.map(() => []);
const cpuMbps = names.map(() => []);
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e3;
};
for (let round = -1; round < rounds; round++) {
  // Round -1 warms up; later rounds rotate the order so no case always follows the same one.
  for (let k = 0; k < names.length; k++) {
    const i = (k + Math.max(round, 0)) % names.length;
    const c = cpuMs();
    const t = performance.now();
    await cases[names[i]]();
    const ms = performance.now() - t;
    const cms = cpuMs() - c;
    if (round >= 0) {
      mbps[i].push(total / 1e3 / ms);
      cpuMbps[i].push(total / 1e3 / cms);
    }
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const base = median(mbps[0]);
const cpuBase = median(cpuMbps[0]);
const lines = [
  `Node ${process.version}, core backend ${backend()}, ${cpus()[0].model}, ${availableParallelism()} CPUs, load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
  `${total / 2 ** 20} MiB in ${piece / 1024} KiB pieces, ${rounds} rounds, median MB/s of content`,
  '',
  '| case | MB/s (wall) | vs one-shot | MB/s (CPU time) | vs one-shot | vs best possible |',
  '|---|---:|---:|---:|---:|---:|',
  ...names.map((n, i) => {
    const w = median(mbps[i]);
    const c = median(cpuMbps[i]);
    const floor = median(
      mbps[names.indexOf(/1 MiB/.test(n) ? 'TransformStream, copying, 1 MiB writes' : 'TransformStream, copying')],
    );
    // Time per byte adds up: one-shot hashing, then the copying pipeline's own time.
    const best = 1 / (1 / base + 1 / floor);
    const vsBest = /Stream \(/.test(n) ? (w / best).toFixed(2) : '';
    return `| ${n} | ${w.toFixed(0)} | ${(w / base).toFixed(2)} | ${c.toFixed(0)} | ${(c / cpuBase).toFixed(2)} | ${vsBest} |`;
  }),
  '',
  `Best possible for a verifying stream (one-shot hashing plus the copying pipeline): ${[
    'TransformStream, copying',
    'TransformStream, copying, 1 MiB writes',
  ]
    .map((f) => (1 / (1 + base / median(mbps[names.indexOf(f)]))).toFixed(2))
    .join('x one-shot with 64 KiB writes, ')}x with 1 MiB writes.`,
];
process.stdout.write(`${lines.join('\n')}\n`);
