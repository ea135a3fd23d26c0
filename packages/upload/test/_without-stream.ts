// Run as its own process (test/optional-stream.test.ts): loads the verifying store where
// `@blake3-web/stream` cannot be found, as in an install without that optional peer, uploads
// through a store without and with `outboard`, and prints what happened as JSON.
import { register } from 'node:module';

register(
  'data:text/javascript,' +
    encodeURIComponent(`
export async function resolve(specifier, context, next) {
  if (specifier === '@blake3-web/stream' || specifier.startsWith('@blake3-web/stream/'))
    throw Object.assign(new Error("Cannot find package '" + specifier + "'"), { code: 'ERR_MODULE_NOT_FOUND' });
  return next(specifier, context);
}`),
);

const { blake3, bytesToHex } = await import('@blake3-web/core');
const { FileStore } = await import('@tus/file-store');
const { Upload } = await import('@tus/utils');
const { mkdtempSync, rmSync } = await import('node:fs');
const { tmpdir } = await import('node:os');
const { join } = await import('node:path');
const { Readable } = await import('node:stream');
const { Blake3Store, fileStoreBytes, OutboardUnavailableError } = await import('../src/tus-store.ts');
const fromServer = await import('../src/tus-server.ts');

const directory = mkdtempSync(join(tmpdir(), 'blake3-no-stream-'));
const data = new Uint8Array(100_000).map((_, i) => i % 251);
const result: Record<string, unknown> = {};
try {
  const plain = new Blake3Store(new FileStore({ directory }), { read: fileStoreBytes(directory) });
  await plain.create(new Upload({ id: 'plain', size: data.length, offset: 0 }));
  await plain.write(Readable.from([Buffer.from(data)]), 'plain', 0);
  result.root = bytesToHex(await plain.rootOf('plain', data.length));
  result.expected = bytesToHex(blake3(data));

  const withOutboard = new Blake3Store(new FileStore({ directory }), {
    read: fileStoreBytes(directory),
    outboard: true,
  });
  await withOutboard.create(new Upload({ id: 'outboard', size: data.length, offset: 0 }));
  try {
    await withOutboard.write(Readable.from([Buffer.from(data)]), 'outboard', 0);
    result.outboard = 'written';
  } catch (e) {
    result.outboard = {
      name: (e as Error).name,
      message: (e as Error).message,
      exported: e instanceof OutboardUnavailableError && e instanceof fromServer.OutboardUnavailableError,
    };
  }
  result.offsetAfterRefusal = (await withOutboard.getUpload('outboard')).offset;
} finally {
  rmSync(directory, { recursive: true, force: true });
}
console.log(JSON.stringify(result));
