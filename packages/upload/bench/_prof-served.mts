// profile one served instance (FileStore + wrapper) receiving an upload
import { blake3, bytesToHex } from '@blake3-web/core';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Upload } from 'tus-js-client';
import { freePort, startRedis, startS3 } from '../test/_fleet-services.ts';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const MiB = 1 << 20;
const size = Number(process.argv[2] ?? 512) * MiB;
const unverified = process.argv[3] === 'bare' ? '1' : '0';
const data = new Uint8Array(size);
for (let i = 0; i < size; i += 4) data[i] = (i * 2654435761) >>> 24;
const root = bytesToHex(blake3(data));
const redis = await startRedis();
const s3 = await startS3();
const directory = mkdtempSync(join(tmpdir(), 'prof-'));
const port = await freePort();
const child = spawn(process.execPath, ['--cpu-prof', '--cpu-prof-dir=/tmp/prof-served', '--import', 'tsx', '/work/main/packages/upload/test/_fleet-instance.ts'], {
  env: { ...process.env, INSTANCE: 'p', PORT: String(port), REDIS_PORT: String(redis.port), S3_ENDPOINT: s3.endpoint, DIRECTORY: directory, UNVERIFIED: unverified },
  stdio: ['ignore', 'pipe', 'inherit'], cwd: '/work/main/packages/upload',
});
await new Promise((r) => child.stdout!.once('data', r));
const t = performance.now();
await new Promise<void>((resolve, reject) => new Upload(Buffer.from(data.buffer, 0, size), { endpoint: `http://127.0.0.1:${port}/files/`, chunkSize: 32 * MiB, headers: { 'Upload-Blake3': root }, onSuccess: () => resolve(), onError: reject }).start());
console.log('upload', (performance.now() - t).toFixed(0), 'ms');
const exited = new Promise((r) => child.once('exit', r));
child.kill('SIGTERM');
await exited;
rmSync(directory, { recursive: true, force: true });
await Promise.all([redis.stop(), s3.stop()]);
