// Where the verifying wrapper's CPU goes, layer by layer, on the same bytes in the same pieces. Not a test.
//   node --import tsx bench/wrapper-hash-costs.ts [MiB] [rounds] [piece KiB]
// CPU seconds per GiB of this process (every thread), interleaved rounds (the order turned each
// round), medians. Each body piece is a Buffer, as an HTTP body's are, a view of the bytes: making a
// new Buffer for each, as fleet-costs.ts does, cost 0.2-0.9 s per GiB from one run to the next (the
// allocator's page faults, the GC), which fell on whichever layer touched them.
// 1. The kernel at its best: blake3() of 1 MiB, the same MiB over and over.
// 2. The kernel on the wrapper's calls: hashSubtrees of the leaves of each piece (64 KiB leaves,
//    what the wrapper hashes a body in without `outboard`).
// 3. The leaf pass alone (`LeafRun` into `SharedHashState`, a state settled and recorded every
//    8 MiB, as the wrapper saves them): the kernel plus the bookkeeping around it.
// 4. A store that keeps nothing, bare and wrapped (state in memory, and in Redis): the streams
//    and each request's work (state read, saved, checked) as well, requests of 32 MiB. What
//    fleet-costs.ts measures with a FileStore or an S3Store, without the store's own CPU and its
//    noise (a FileStore's page-cache writes vary by a second per GiB between runs).
// 5. One request of 16 KiB through the wrapper (memory, Redis): the work per request.
// Layers 1-4 run with each leaf hasher, WASM (the core's kernel) and native (@blake3-web/native,
// the Rust crate's AVX2 or SSE4.1 code), in the same interleaved rounds.
import { blake3 } from '@blake3-web/core';
import { hashSubtrees, Mode } from '@blake3-web/core/hazmat';
import { hashSubtrees as nativeHashSubtrees } from '@blake3-web/native';
import { DataStore, IoRedisKvStore, MemoryKvStore, Upload, type KvStore } from '@tus/utils';
import { Redis } from 'ioredis';
import { loadavg } from 'node:os';
import { Readable } from 'node:stream';
import { LeafRun } from '../src/_leaf-runs.ts';
import { SharedHashState } from '../src/_shared-state.ts';
import type { HasherBackend, HashSubtrees } from '../src/_subtree-hasher.ts';
import { Blake3Store, type HashRecord } from '../src/tus-store.ts';
import { startRedis } from '../test/_fleet-services.ts';
import { median } from './_bench-file.ts';

const MiB = 1 << 20;
const size = Number(process.argv[2] ?? 256) * MiB;
const rounds = Number(process.argv[3] ?? 5);
const piece = Number(process.argv[4] ?? 64) * 1024;
const LEAF = 64 << 10;
const STATE_EVERY = 8 * MiB;
const REQUEST = 32 * MiB;

const data = new Uint8Array(size);
for (let i = 0; i < size; i += 4) data[i] = (i * 2654435761) >>> 24;
const hot = data.slice(0, MiB);
const mode = new Mode({});
const pieceAt = (at: number, end = size) => Buffer.from(data.buffer, at, Math.min(end, at + piece) - at);

/** Takes the body and keeps nothing: what a store costs beside the wrapper, with no store of its own. */
class DiscardingStore extends DataStore {
  readonly #offsets = new Map<string, number>();
  override async create(upload: Upload): Promise<Upload> {
    this.#offsets.set(upload.id, 0);
    return upload;
  }
  override async getUpload(id: string): Promise<Upload> {
    return new Upload({ id, size: undefined, offset: this.#offsets.get(id) ?? 0 });
  }
  override async write(readable: Readable, id: string, offset: number): Promise<number> {
    let end = offset;
    for await (const bytes of readable) end += (bytes as Uint8Array).length;
    this.#offsets.set(id, end);
    return end;
  }
}

const redis = await startRedis();
const client = new Redis({ port: redis.port, host: '127.0.0.1', maxRetriesPerRequest: 1 });
const kvs: Record<string, () => KvStore<HashRecord>> = {
  memory: () => new MemoryKvStore<HashRecord>(),
  Redis: () => new IoRedisKvStore<HashRecord>(client, 'bench-wrapper:'),
};

const hashers: Record<HasherBackend, HashSubtrees> = { wasm: hashSubtrees, native: nativeHashSubtrees };

function leafPass(hash: HashSubtrees): void {
  const state = SharedHashState.empty('u', {});
  let run = new LeafRun(0, LEAF, state, mode, false, hash);
  for (let at = 0; at < size; at += piece) {
    const bytes = pieceAt(at);
    const boundary = (Math.floor(run.end / STATE_EVERY) + 1) * STATE_EVERY;
    if (run.end + bytes.length < boundary) {
      run.update(bytes);
      continue;
    }
    run.update(bytes.subarray(0, boundary - run.end));
    run.settle();
    state.record();
    const start = run.end;
    run = new LeafRun(start, LEAF, state, mode, false, hash);
    run.update(bytes.subarray(boundary - at));
  }
  run.settle();
  state.digest();
}

let uploads = 0;
async function throughStore(kv: string | undefined, hasher: HasherBackend = 'wasm'): Promise<void> {
  const inner = new DiscardingStore();
  const wrapper = kv === undefined ? undefined : new Blake3Store(inner, { kv: kvs[kv]!(), hasher });
  if (wrapper !== undefined && (await wrapper.hasherBackend()) !== hasher)
    throw new Error(`not hashing with ${hasher}`);
  const store = wrapper ?? inner;
  const id = `u${uploads++}`;
  await store.create(new Upload({ id, size, offset: 0 }));
  for (let at = 0; at < size; at += REQUEST) {
    const end = Math.min(size, at + REQUEST);
    const body = Readable.from(
      (function* () {
        for (let p = at; p < end; p += piece) yield pieceAt(p, end);
      })(),
    );
    await store.write(body, id, at);
  }
  if (wrapper !== undefined) {
    await wrapper.rootOf(id, size);
    if (wrapper.bytesReadBack !== 0) throw new Error(`read back ${wrapper.bytesReadBack} bytes on the happy path`);
    await wrapper.remove(id);
  }
}

/** The leaves of each piece as the wrapper hashes them. */
function wrapperCalls(hash: HashSubtrees): void {
  for (let at = 0; at < size; at += piece) {
    const bytes = pieceAt(at);
    const whole = bytes.length - (bytes.length % LEAF);
    if (whole > 0) hash(bytes.subarray(0, whole), at, LEAF, mode);
    if (whole < bytes.length) hash(bytes.subarray(whole), at + whole, LEAF, mode);
  }
}

const HASHERS = ['wasm', 'native'] as const;
const layers: Record<string, () => unknown> = {
  'kernel, best (1 MiB one-shot)': () => {
    for (let at = 0; at < size; at += MiB) blake3(hot);
  },
  // The crate's hasher over one 1 MiB subtree: its one-shot speed with no work around it.
  'native, best (1 MiB subtree)': () => {
    for (let at = 0; at < size; at += MiB) nativeHashSubtrees(hot, 0, MiB, mode);
  },
  ...Object.fromEntries(HASHERS.map((h) => [`kernel, the wrapper's calls [${h}]`, () => wrapperCalls(hashers[h])])),
  ...Object.fromEntries(HASHERS.map((h) => [`leaf pass [${h}]`, () => leafPass(hashers[h])])),
  'store, bare': () => throughStore(undefined),
  ...Object.fromEntries(
    HASHERS.flatMap((h) => [
      [`store + wrapper (memory) [${h}]`, () => throughStore('memory', h)],
      [`store + wrapper (Redis) [${h}]`, () => throughStore('Redis', h)],
    ]),
  ),
};

async function cpu(f: () => unknown): Promise<number> {
  const before = process.cpuUsage();
  await f();
  const used = process.cpuUsage(before);
  return ((used.user + used.system) / 1e6) * ((1024 * MiB) / size);
}

try {
  for (const f of Object.values(layers)) await f(); // warm: every path compiled and tiered up
  const names = Object.keys(layers);
  const results: Record<string, number[]> = {};
  for (let r = 0; r < rounds; r++)
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + r) % names.length]!;
      (results[name] ??= []).push(await cpu(layers[name]!));
    }

  async function perRequest(kv: string): Promise<number> {
    const store = new Blake3Store(new DiscardingStore(), { kv: kvs[kv]!() });
    const id = `r${uploads++}`;
    await store.create(new Upload({ id, size: 1 << 30, offset: 0 }));
    const bytes = data.subarray(0, 16 << 10);
    const n = 500;
    const before = process.cpuUsage();
    for (let i = 0; i < n; i++) await store.write(Readable.from([Buffer.from(bytes)]), id, i * bytes.length);
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1000 / n;
  }
  const requests: Record<string, number[]> = { memory: [], Redis: [] };
  for (let r = 0; r < rounds + 1; r++) for (const kv of Object.keys(requests)) requests[kv]!.push(await perRequest(kv));

  console.log(
    `${size / MiB} MiB in pieces of ${piece / 1024} KiB, ${rounds} rounds, load ${loadavg()[0].toFixed(2)}; CPU seconds per GiB, this process, medians`,
  );
  const of = (name: string) => median(results[name]!);
  for (const name of names)
    console.log(
      `${name.padEnd(32)} ${of(name).toFixed(2)} s/GiB  [${results[name]!.map((x) => x.toFixed(2)).join(' ')}]`,
    );
  const bare = of('store, bare');
  const best = { wasm: of('kernel, best (1 MiB one-shot)'), native: of('native, best (1 MiB subtree)') };
  for (const h of HASHERS) {
    const kernel = of(`kernel, the wrapper's calls [${h}]`);
    console.log(`[${h}] kernel on the wrapper's calls / at its best: ${(kernel / best[h]).toFixed(2)}x`);
    console.log(`[${h}] leaf pass beside the kernel: ${(of(`leaf pass [${h}]`) - kernel).toFixed(2)} s/GiB`);
    for (const kv of ['memory', 'Redis']) {
      const over = of(`store + wrapper (${kv}) [${h}]`) - bare;
      console.log(
        `[${h}] wrapper (${kv}) over bare: ${over.toFixed(2)} s/GiB, of which the kernel ${kernel.toFixed(2)} (${((100 * kernel) / over).toFixed(0)} %), around it ${(over - kernel).toFixed(2)}`,
      );
    }
  }
  // The first round compiles, tiers up and grows the heap: left out of the median.
  for (const kv of Object.keys(requests))
    console.log(`one 16 KiB request through the wrapper (${kv}): ${median(requests[kv]!.slice(1)).toFixed(2)} ms CPU`);
} finally {
  client.disconnect();
  await redis.stop();
}
