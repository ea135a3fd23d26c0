// What the verifying wrapper costs, and what it reads back. Not a test.
//   node --import tsx bench/fleet-costs.ts [MiB] [rounds] [--fleet]
// 1. CPU per GiB written through a FileStore and an S3Store (gofakes3), each with and without the
//    wrapper (state in Redis), and the FileStore's wrapper with `outboard` (16 KiB leaves, kept as
//    the bytes pass; not the finish), one instance, requests of 32 MiB, interleaved rounds (the order
//    turned each round), medians; the bytes the wrapper read back from the store on that happy
//    path (expected 0). CPU is every thread's: this process's (getrusage counts all its threads,
//    libuv's pool included) and the S3 server's and Redis's (from /proc), shown apart too. Not
//    counted: the kernel's own threads that write the page cache back to disk.
// 2. With --served (instead of 1): the same, but as a server spends it: one tus instance process
//    (test/_fleet-instance.ts) over a FileStore or an S3Store, with and without the wrapper (and
//    its check at the finish), receiving the upload from tus-js-client in this process in
//    requests of 32 MiB; the instance's CPU (HTTP, tus, store, hash) and the services', per GiB.
// 3. With --fleet: one upload of [MiB] through three instance processes behind a round-robin
//    proxy (test/_fleet-instance.ts), verified against unverified, wall time, medians.
// Each wrapped variant runs with each leaf hasher, [wasm] (the core's kernel) and [native]
// (@blake3-web/native), in the same interleaved rounds.
// Redis and the S3 server are started here (bootstrap installs them) and stopped after.
import { blake3, bytesToHex } from '@blake3-web/core';
import { FileStore } from '@tus/file-store';
import { S3Store } from '@tus/s3-store';
import { IoRedisKvStore, Upload as TusUpload, type DataStore } from '@tus/utils';
import { Redis } from 'ioredis';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Upload } from 'tus-js-client';
import { Blake3Store, fileStoreBytes, s3StoreBytes, type HashRecord, type HasherBackend } from '../src/tus-store.ts';
import { freePort, killInstance, startInstance, startRedis, startS3 } from '../test/_fleet-services.ts';
import { median } from './_bench-file.ts';

// The AWS SDK's notice that its 2027 releases need Node 22, once per process, instances included.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const MiB = 1 << 20;
const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const size = Number(args[0] ?? 256) * MiB;
const rounds = Number(args[1] ?? 3);
const fleet = process.argv.includes('--fleet');
const served = process.argv.includes('--served');
const REQUEST = 32 * MiB;

const data = new Uint8Array(size);
for (let i = 0; i < size; i += 4) data[i] = (i * 2654435761) >>> 24;

const redis = await startRedis();
const s3 = await startS3();
const client = new Redis({ port: redis.port, host: '127.0.0.1', maxRetriesPerRequest: 1 });
const s3Config = {
  bucket: 'uploads',
  endpoint: s3.endpoint,
  region: 'us-east-1',
  forcePathStyle: true,
  requestChecksumCalculation: 'WHEN_REQUIRED' as const,
  responseChecksumValidation: 'WHEN_REQUIRED' as const,
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
};

type Made = { store: DataStore; wrapper?: Blake3Store; hasher?: HasherBackend; done(): void };
const HASHERS = ['wasm', 'native'] as const;
/** A FileStore in a fresh directory under the wrapper, its state in Redis. */
function wrappedFileStore(hasher: HasherBackend, outboard: boolean): Made {
  const directory = mkdtempSync(join(tmpdir(), 'blake3-bench-'));
  const wrapper = new Blake3Store(new FileStore({ directory }), {
    kv: new IoRedisKvStore<HashRecord>(client, 'bench:'),
    read: fileStoreBytes(directory),
    outboard,
    hasher,
  });
  return { store: wrapper, wrapper, hasher, done: () => rmSync(directory, { recursive: true, force: true }) };
}
const variants: Record<string, () => Made> = {
  FileStore: () => {
    const directory = mkdtempSync(join(tmpdir(), 'blake3-bench-'));
    return { store: new FileStore({ directory }), done: () => rmSync(directory, { recursive: true, force: true }) };
  },
  ...Object.fromEntries(
    HASHERS.flatMap((hasher) => [
      [`FileStore + wrapper [${hasher}]`, () => wrappedFileStore(hasher, false)],
      // The outboard's leaves (16 KiB) kept as the bytes pass: the same one pass, plus the leaf runs.
      [`FileStore + outboard [${hasher}]`, () => wrappedFileStore(hasher, true)],
    ]),
  ),
  S3Store: () => ({ store: new S3Store({ partSize: 8 * MiB, s3ClientConfig: s3Config }), done: () => undefined }),
  ...Object.fromEntries(
    HASHERS.map((hasher) => [
      `S3Store + wrapper [${hasher}]`,
      (): Made => {
        const inner = new S3Store({ partSize: 8 * MiB, s3ClientConfig: s3Config });
        const wrapper = new Blake3Store(inner, {
          kv: new IoRedisKvStore<HashRecord>(client, 'bench:'),
          read: s3StoreBytes(inner),
          hasher,
        });
        return { store: wrapper, wrapper, hasher, done: () => undefined };
      },
    ]),
  ),
};

const body = (bytes: Uint8Array) =>
  Readable.from(
    (async function* () {
      for (let i = 0; i < bytes.length; i += 256 * 1024) yield Buffer.from(bytes.subarray(i, i + 256 * 1024));
    })(),
  );

/** CPU seconds a server process used so far, all its threads (utime + stime in /proc/<pid>/stat). */
function serverCpu(pid: number | undefined): number {
  return serverTimes(pid).reduce((a, b) => a + b, 0);
}
/** [user, system] CPU seconds a server process used so far, all its threads. */
function serverTimes(pid: number | undefined): [number, number] {
  if (pid === undefined) return [0, 0];
  const fields = readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1].split(' ');
  return [Number(fields[11]) / 100, Number(fields[12]) / 100]; // clock ticks of 1/100 s on Linux
}
const servicesCpu = () => serverCpu(redis.pid) + serverCpu(s3.pid);

let n = 0;
async function cpuPerGiB(
  make: () => Made,
): Promise<{ cpu: number; system: number; services: number; readBack: number }> {
  const { store, wrapper, hasher, done } = make();
  if (wrapper !== undefined && (await wrapper.hasherBackend()) !== hasher)
    throw new Error(`not hashing with ${hasher}`);
  const id = `bench-${n++}`;
  await store.create(new TusUpload({ id, size, offset: 0 }));
  // The previous variant's dirty pages written back now, not on this one's account: a process
  // that writes past the kernel's dirty limit writes pages back itself, in its own system time.
  execFileSync('sync');
  const before = process.cpuUsage();
  const servicesBefore = servicesCpu();
  for (let at = 0; at < size; at += REQUEST)
    await store.write(body(data.subarray(at, Math.min(size, at + REQUEST))), id, at);
  if (wrapper) await wrapper.rootOf(id, size);
  const used = process.cpuUsage(before);
  const services = servicesCpu() - servicesBefore;
  done();
  const perGiB = (1024 * MiB) / size;
  return {
    cpu: ((used.user + used.system) / 1e6 + services) * perGiB,
    system: (used.system / 1e6) * perGiB,
    services: services * perGiB,
    readBack: wrapper?.bytesReadBack ?? 0,
  };
}

/** Section 1: the store's own CPU, written to in this process. */
async function storeCosts(): Promise<void> {
  console.log(
    `${size / MiB} MiB, ${rounds} rounds, load ${loadavg()[0].toFixed(2)}; CPU seconds per GiB, every thread of this process, the S3 server and Redis`,
  );
  const results: Record<string, number[]> = {};
  const ofServices: Record<string, number[]> = {};
  const ofSystem: Record<string, number[]> = {};
  let readBack = 0;
  const names = Object.keys(variants);
  for (let r = 0; r < rounds; r++)
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + r) % names.length];
      const { cpu, system, services, readBack: back } = await cpuPerGiB(variants[name]);
      (ofSystem[name] ??= []).push(system);
      (results[name] ??= []).push(cpu);
      (ofServices[name] ??= []).push(services);
      readBack += back;
    }
  for (const name of names)
    console.log(
      `${name.padEnd(22)} ${median(results[name]).toFixed(2)} s/GiB (of which S3 server and Redis ${median(ofServices[name]).toFixed(2)}, this process's system time ${median(ofSystem[name]).toFixed(2)})`,
    );
  // Ratios within each round as well: variants of one round share the machine's state.
  const perRound = (a: string, b: string) =>
    results[a]!.map((x, r) => (x / results[b]![r]!).toFixed(2) + 'x').join(', ');
  for (const h of HASHERS) {
    console.log(
      `[${h}] wrapper / store: FileStore ${(median(results[`FileStore + wrapper [${h}]`]) / median(results.FileStore)).toFixed(2)}x, S3Store ${(median(results[`S3Store + wrapper [${h}]`]) / median(results.S3Store)).toFixed(2)}x`,
    );
    console.log(
      `[${h}] outboard / wrapper (FileStore): ${(median(results[`FileStore + outboard [${h}]`]) / median(results[`FileStore + wrapper [${h}]`])).toFixed(2)}x`,
    );
    console.log(
      `[${h}] per round, FileStore + wrapper / FileStore: ${perRound(`FileStore + wrapper [${h}]`, 'FileStore')}`,
    );
    console.log(`[${h}] per round, S3Store + wrapper / S3Store: ${perRound(`S3Store + wrapper [${h}]`, 'S3Store')}`);
  }
  console.log(`bytes read back by the wrapper on the happy path: ${readBack}`);
}
if (!served) await storeCosts();

const root = bytesToHex(blake3(data));

/** An instance process on a free port, `env` added to its environment. */
const instance = async (name: string, env: Record<string, string>) =>
  startInstance(name, await freePort(), { redis, s3 }, env);

/** `bytes` uploaded to `endpoint` with their root, in requests of `chunkSize`. */
const upload = (endpoint: string, chunkSize: number, bytes: Uint8Array = data) =>
  new Promise<void>((resolve, reject) =>
    new Upload(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length), {
      endpoint,
      chunkSize,
      headers: { 'Upload-Blake3': bytes === data ? root : bytesToHex(blake3(bytes)) },
      onSuccess: () => resolve(),
      onError: reject,
    }).start(),
  );

if (served) {
  const kinds = [
    'FileStore',
    ...HASHERS.map((h) => `FileStore + wrapper [${h}]`),
    'S3Store',
    ...HASHERS.map((h) => `S3Store + wrapper [${h}]`),
  ];
  const cpu: Record<string, number[]> = {};
  const system: Record<string, number[]> = {};
  for (let r = 0; r < rounds; r++)
    for (let i = 0; i < kinds.length; i++) {
      const kind = kinds[(i + r) % kinds.length]!;
      const directory = kind.startsWith('FileStore') ? mkdtempSync(join(tmpdir(), 'blake3-bench-')) : undefined;
      const one = await instance('served', {
        UNVERIFIED: kind.includes('wrapper') ? '0' : '1',
        HASHER: kind.includes('[native]') ? 'native' : 'wasm',
        ...(directory === undefined ? {} : { DIRECTORY: directory }),
      });
      const endpoint = `http://127.0.0.1:${one.port}/files/`;
      // Its start (code compiled, connections opened) not counted: a first small upload.
      await upload(endpoint, REQUEST, data.subarray(0, Math.min(size, 8 * MiB)));
      execFileSync('sync');
      const [user0, system0] = serverTimes(one.child.pid);
      const services0 = servicesCpu();
      await upload(endpoint, REQUEST);
      const [user1, system1] = serverTimes(one.child.pid);
      const perGiB = (1024 * MiB) / size;
      (cpu[kind] ??= []).push((user1 + system1 - user0 - system0 + servicesCpu() - services0) * perGiB);
      (system[kind] ??= []).push((system1 - system0) * perGiB);
      await killInstance(one);
      if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
    }
  for (const kind of kinds)
    console.log(
      `served, ${kind.padEnd(19)} ${median(cpu[kind]!).toFixed(2)} s/GiB (${cpu[kind]!.map((x) => x.toFixed(2)).join(', ')}; the instance's system time ${median(system[kind]!).toFixed(2)})`,
    );
  const perRound = (a: string, b: string) => cpu[a]!.map((x, r) => (x / cpu[b]![r]!).toFixed(2) + 'x').join(', ');
  for (const h of HASHERS) {
    console.log(`served, [${h}] per round, FileStore: ${perRound(`FileStore + wrapper [${h}]`, 'FileStore')}`);
    console.log(`served, [${h}] per round, S3Store: ${perRound(`S3Store + wrapper [${h}]`, 'S3Store')}`);
    console.log(
      `served, [${h}] wrapper / store: FileStore ${(median(cpu[`FileStore + wrapper [${h}]`]!) / median(cpu.FileStore!)).toFixed(2)}x, S3Store ${(median(cpu[`S3Store + wrapper [${h}]`]!) / median(cpu.S3Store!)).toFixed(2)}x`,
    );
  }
}

if (fleet) {
  const times: Record<string, number[]> = { 'verified [wasm]': [], 'verified [native]': [], unverified: [] };
  for (let r = 0; r < rounds; r++)
    for (const mode of Object.keys(times)) {
      const env = {
        UNVERIFIED: mode === 'unverified' ? '1' : '0',
        HASHER: mode.includes('[native]') ? 'native' : 'wasm',
      };
      const instances = await Promise.all([0, 1, 2].map((i) => instance(`i${i}`, env)));
      const ports = instances.map((x) => x.port);
      let next = 0;
      const proxy = createServer((req, res) => {
        const upstream = request(
          { host: '127.0.0.1', port: ports[next++ % 3], method: req.method, path: req.url, headers: req.headers },
          (up) => {
            res.writeHead(up.statusCode ?? 502, up.headers);
            up.pipe(res);
          },
        );
        req.pipe(upstream);
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      const started = performance.now();
      await upload(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}/files/`, 64 * MiB);
      times[mode].push(performance.now() - started);
      proxy.closeAllConnections();
      proxy.close();
      await Promise.all(instances.map(killInstance));
    }
  const u = median(times.unverified!);
  for (const h of HASHERS) {
    const v = median(times[`verified [${h}]`]!);
    console.log(
      `fleet of 3, ${size / MiB} MiB: verified [${h}] ${(v / 1000).toFixed(2)} s, unverified ${(u / 1000).toFixed(2)} s, ${(v / u).toFixed(2)}x`,
    );
  }
}

client.disconnect();
await Promise.all([redis.stop(), s3.stop()]);
