// The upload package's server block as a user runs it: examples/tus-server installed from the
// packed tarballs (the native addon's among them), its server.mjs started with node on a free
// port, and files sent by its client.mjs (tus-js-client 4 in Node with the README's client
// options). The root it verifies must be the official implementation's (packages/testkit's
// oracle), a wrong one must be refused without the computed root, and the outboard kept beside
// a verified upload must verify under the stream package from its tarball. No browser.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { oracle, paint } from '@blake3-web/testkit';
import { expect, test } from '@playwright/test';

import { repoRoot } from '../../servers/fixture-server.ts';
import { TUS_SERVER } from './apps.ts';
import { appDir, appEnv, packStaging } from './prepare.ts';

const app = appDir(TUS_SERVER);
const uploads = join(app, 'uploads');
const ROOT_HEADER = 'Upload-Blake3';
const VERIFIED_HEADER = 'Upload-Blake3-Verified';
/** Requests of 1 MiB: the file below takes four PATCHes. */
const CHUNK_SIZE = 1024 * 1024;

/** The README's server block, marked with the example file that holds it. */
function readmeServerBlock(): string {
  const readme = readFileSync(join(repoRoot, 'packages/upload/README.md'), 'utf8');
  const block = /<!-- example: examples\/tus-server\/server\.mjs -->\n```ts\n([\s\S]*?)```/.exec(readme);
  expect(block, 'packages/upload/README.md marks the block').not.toBeNull();
  return block![1];
}

type Running = { endpoint: string; hasher: string; output: () => string; stop: () => Promise<void> };

/** `node server.mjs` in the installed app on a free port, once it says it listens. */
async function startServer(): Promise<Running> {
  const child = spawn(process.execPath, ['server.mjs'], {
    cwd: app,
    env: { ...appEnv, HOST: '127.0.0.1', PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr.on('data', (d) => (output += d));
  const closed = new Promise<void>((resolve) => {
    child.once('close', () => resolve());
    child.once('error', (e) => {
      output += String(e);
      resolve();
    });
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill();
    await closed;
  };
  try {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const started = await new Promise<RegExpExecArray>((resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`the server did not listen within 60 s:\n${output}`)), 60_000);
      child.stdout.on('data', (d) => {
        output += d;
        const line = /tus server at (http:\/\/\S+), hashing with (\S+)/.exec(output);
        if (line) resolve(line);
      });
      void closed.then(() => reject(new Error(`the server exited before it listened:\n${output}`)));
    }).finally(() => clearTimeout(timer));
    return { endpoint: started[1], hasher: started[2], output: () => output, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

type UploadResult = { url: string; verified: string | null };
type TusError = Error & {
  originalResponse?: { getStatus(): number; getBody(): string; getHeader(name: string): string | undefined } | null;
};
type TusRequest = { getMethod(): string; getURL(): string; getHeader(n: string): string | undefined };
type TusResponse = {
  getStatus(): number;
  getBody(): string;
  getUnderlyingObject(): { headers: Record<string, string | string[] | undefined> };
};
type Client = {
  uploadFile(
    path: string,
    opts: {
      endpoint: string;
      chunkSize: number;
      onBeforeRequest?: (req: TusRequest & { setHeader(n: string, v: string): void }) => void;
      onAfterResponse?: (req: TusRequest, res: TusResponse) => void;
    },
  ): Promise<UploadResult>;
};

/** A module of the installed app, resolved from it as its own files resolve it (the tarball's). */
async function fromApp<T>(specifier: string): Promise<T> {
  const file = specifier.startsWith('./')
    ? join(app, specifier)
    : createRequire(join(app, 'package.json')).resolve(specifier);
  return (await import(pathToFileURL(file).href)) as T;
}

const idOf = (url: string) => new URL(url).pathname.split('/').pop()!;

test('the packed native package carries its addon, and the app has it from the tarball', () => {
  const tarball = readdirSync(packStaging).find((f) => /^blake3-web-native-\d+\.\d+\.\d+\.tgz$/.test(f));
  expect(tarball, `pnpm pack wrote the native package into ${packStaging}`).toBeDefined();
  const listed = spawnSync('tar', ['-tzf', join(packStaging, tarball!)], { encoding: 'utf8' });
  expect(listed.status, listed.stderr).toBe(0);
  const addons = listed.stdout.split('\n').filter((f) => /^package\/blake3-web-native\.[\w-]+\.node$/.test(f));
  expect(addons.length, listed.stdout).toBeGreaterThan(0);
  for (const addon of addons)
    expect(existsSync(join(app, 'node_modules/@blake3-web/native', addon.slice('package/'.length)))).toBe(true);
});

test("the app's server.mjs holds the README's server block as it stands", () => {
  expect(readFileSync(join(repoRoot, 'examples/tus-server/server.mjs'), 'utf8')).toContain(readmeServerBlock());
});

test("the README's server, from the tarballs: native hasher, the official root verified, a wrong root refused, the outboard verifies", async () => {
  test.setTimeout(240_000);
  rmSync(uploads, { recursive: true, force: true });
  const files = join(app, 'test-files');
  rmSync(files, { recursive: true, force: true });
  mkdirSync(files);
  // A few MiB and an odd tail: several requests, the last one short and not a whole chunk.
  const input = paint(3 * CHUNK_SIZE + 12_345);
  const other = paint(input.length, 7);
  const path = join(files, 'input.bin');
  writeFileSync(path, input);
  const [root, otherRoot] = oracle([
    { data: input, length: 32 },
    { data: other, length: 32 },
  ]);
  const { uploadFile } = await fromApp<Client>('./client.mjs');
  const stream = await fromApp<typeof import('@blake3-web/stream')>('@blake3-web/stream');

  const server = await startServer();
  try {
    // 'native': the packed addon loaded and agreed with the core's hash.
    expect(server.hasher, server.output()).toBe('native');

    const patches: number[] = [];
    const good = await uploadFile(path, {
      endpoint: server.endpoint,
      chunkSize: CHUNK_SIZE,
      onAfterResponse: (req, res) => void (req.getMethod() === 'PATCH' && patches.push(res.getStatus())),
    });
    expect(patches).toEqual([204, 204, 204, 204]);
    expect(good.verified).toBe(root);
    const id = idOf(good.url);
    const stored = readFileSync(join(uploads, id));
    expect(stored.equals(input), 'the stored file holds the bytes sent').toBe(true);

    // The outboard kept beside it (16 KiB leaves, which `bao` does not write) verifies the
    // stored bytes under the official root, every parent of it checked; a flipped byte does not.
    const obao = new Uint8Array(readFileSync(join(uploads, `${id}.obao`)));
    const groups = { chunkGroupLog: 4 };
    expect(obao.length).toBe(stream.baoOutboardSize(input.length, groups));
    const decoded = stream.baoDecode(new Uint8Array(stored), root, { outboard: obao, ...groups });
    expect(Buffer.from(decoded).equals(input)).toBe(true);
    const tampered = obao.slice();
    tampered[tampered.length - 1] ^= 1;
    expect(() => stream.baoDecode(new Uint8Array(stored), root, { outboard: tampered, ...groups })).toThrow(
      stream.IntegrityError,
    );

    // The same file with another file's root in place of its own.
    let refusedUrl = '';
    let refusedResponse = '';
    const refused = await uploadFile(path, {
      endpoint: server.endpoint,
      chunkSize: CHUNK_SIZE,
      onBeforeRequest: (req) => {
        if (req.getHeader(ROOT_HEADER) !== undefined) req.setHeader(ROOT_HEADER, otherRoot);
      },
      onAfterResponse: (req, res) => {
        if (req.getMethod() !== 'PATCH') return;
        refusedUrl = req.getURL();
        if (res.getStatus() === 460)
          refusedResponse = JSON.stringify(res.getUnderlyingObject().headers) + res.getBody();
      },
    }).then(
      () => undefined,
      (e: TusError) => e,
    );
    expect(refused, 'the upload with a wrong root fails').toBeInstanceOf(Error);
    expect(refused!.originalResponse?.getStatus()).toBe(460);
    expect(refused!.originalResponse?.getHeader(VERIFIED_HEADER)).toBeUndefined();
    expect(refusedResponse).not.toBe('');
    // Neither the headers nor the body give the computed root away.
    expect(refusedResponse.toLowerCase()).not.toContain(root);
    expect(String(refused).toLowerCase()).not.toContain(root);
    // Removed: the server has no such upload, and nothing of it is left on disk.
    const refusedId = idOf(refusedUrl);
    expect(refusedId).not.toBe(id);
    const head = await fetch(refusedUrl, { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0' } });
    expect(head.status).toBe(404);
    expect(readdirSync(uploads).filter((f) => f.includes(refusedId))).toEqual([]);
    expect(readdirSync(join(uploads, '.blake3')).filter((f) => f.includes(refusedId))).toEqual([]);
    // The verified upload is untouched.
    expect(readFileSync(join(uploads, id)).equals(input)).toBe(true);
  } finally {
    await server.stop();
  }
});
