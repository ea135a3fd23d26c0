// Three tus instances (separate processes) behind a round-robin proxy, with Redis and the S3
// server, tus-js-client uploading through the proxy. The invariant in every fault: a finished
// upload is accepted if and only if its stored bytes hash (official implementation) to the
// client's root; every request is answered in bounded time.
import { oracle, Random } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from 'tus-js-client';
import {
  freePort,
  killInstance as kill,
  startInstance as startInstanceOver,
  startRedis,
  startS3,
  type Instance,
  type Service,
} from './_fleet-services.ts';

const MiB = 1 << 20;
const ROOT_HEADER = 'Upload-Blake3';
const VERIFIED_HEADER = 'Upload-Blake3-Verified';
const INSTANCE_HEADER = 'Blake3-Instance';
const official = (data: Uint8Array): string => oracle([{ data, length: 32 }])[0];

let redis: Service;
let s3: Service & { endpoint: string };

const instances: Instance[] = [];
const startInstance = (name: string, port: number, extra: Record<string, string> = {}) =>
  startInstanceOver(name, port, { redis, s3 }, extra);

/**
 * A round-robin proxy over `targets`; `onPatch` sees each PATCH before it is forwarded (and may
 * wait), with its index and the instance chosen.
 */
type Proxy = { endpoint: string; patches: string[]; close(): Promise<void> };
async function startProxy(
  targets: () => Instance[],
  onPatch?: (n: number, target: Instance, req: IncomingMessage) => Promise<void> | void,
): Promise<Proxy> {
  let next = 0;
  let patchCount = 0;
  const patches: string[] = [];
  const server: Server = createServer(async (req, res) => {
    const pool = targets();
    const target = pool[next++ % pool.length];
    if (req.method === 'PATCH') await onPatch?.(patchCount++, target, req);
    const upstream = request(
      { host: '127.0.0.1', port: target.port, method: req.method, path: req.url, headers: req.headers },
      (up) => {
        if (req.method === 'PATCH' && up.headers[INSTANCE_HEADER.toLowerCase()])
          patches.push(String(up.headers[INSTANCE_HEADER.toLowerCase()]));
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end('instance unreachable\n');
      else res.destroy();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}/files/`,
    patches,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

type Outcome = { accepted: true; url: string } | { accepted: false; url: string | null; status: number };

/** Uploads `data` through `endpoint` with tus-js-client, sending `root`; resolves with the outcome (bounded time). */
function upload(endpoint: string, data: Uint8Array, root: string, chunkSize = 3 * MiB): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the upload got no answer within 90 s')), 90_000);
    let verified: string | null = null;
    const up = new Upload(Buffer.from(data), {
      endpoint,
      chunkSize,
      retryDelays: [0, 200, 500, 1000, 2000],
      headers: { [ROOT_HEADER]: root },
      onAfterResponse: (_req, res) => {
        verified = res.getHeader(VERIFIED_HEADER) ?? verified;
      },
      onSuccess: () => {
        clearTimeout(timer);
        assert.equal(verified, root, 'the finishing response carries the verified root');
        resolve({ accepted: true, url: up.url! });
      },
      onError: (e) => {
        clearTimeout(timer);
        const status = (e as { originalResponse?: { getStatus(): number } }).originalResponse?.getStatus() ?? 0;
        resolve({ accepted: false, url: up.url, status });
      },
    });
    up.start();
  });
}

const s3Client = () =>
  new S3Client({
    endpoint: s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });

/** The stored object of an upload, or undefined when there is none. */
async function stored(url: string): Promise<Uint8Array | undefined> {
  const id = url.split('/').pop()!;
  const client = s3Client();
  try {
    const { Body } = await client.send(new GetObjectCommand({ Bucket: 'uploads', Key: id }));
    return new Uint8Array(await Body!.transformToByteArray());
  } catch (e) {
    if ((e as { name?: string }).name === 'NoSuchKey') return undefined;
    throw e;
  } finally {
    client.destroy();
  }
}

/** The invariant: accepted iff the stored bytes hash to the root; a refused upload leaves no object. */
async function assertInvariant(outcome: Outcome, root: string): Promise<void> {
  const bytes = outcome.url === null ? undefined : await stored(outcome.url);
  if (outcome.accepted) {
    assert.ok(bytes !== undefined, 'an accepted upload is stored');
    assert.equal(official(bytes), root, 'accepted: the stored bytes have the root');
  } else {
    assert.ok(bytes === undefined || official(bytes) !== root, 'refused: no stored object has the root');
    assert.equal(bytes, undefined, 'a refused upload leaves no object');
  }
}

before(async () => {
  [redis, s3] = await Promise.all([startRedis(), startS3()]);
  const ports = await Promise.all([freePort(), freePort(), freePort()]);
  instances.push(...(await Promise.all(ports.map((p, i) => startInstance(`i${i + 1}`, p)))));
});
after(async () => {
  await Promise.all(instances.map(kill));
  await Promise.all([redis?.stop(), s3?.stop()]);
});

describe('three instances behind a round-robin proxy, Redis, S3', { timeout: 170_000 }, () => {
  it('PATCHes spread across instances; accepted with the root, the stored bytes have it', async () => {
    const proxy = await startProxy(() => instances);
    try {
      const data = new Random(41).bytes(12 * MiB + 3);
      const root = official(data);
      const outcome = await upload(proxy.endpoint, data, root);
      assert.equal(outcome.accepted, true);
      assert.ok(new Set(proxy.patches).size >= 2, `PATCHes taken by ${proxy.patches.join(', ')}`);
      await assertInvariant(outcome, root);
    } finally {
      await proxy.close();
    }
  });

  it('an instance SIGKILLed mid-request and restarted, Redis restarted between requests: accepted, the bytes have the root', async () => {
    let killed: Instance | undefined;
    const proxy = await startProxy(
      () => instances.filter((i) => i.child.exitCode === null && i.child.signalCode === null),
      async (n, target, req) => {
        if (n === 1) {
          // Kill the instance once a MiB of this PATCH went through to it.
          let seen = 0;
          req.on('data', (d: Buffer) => {
            seen += d.length;
            if (seen > MiB && killed === undefined) {
              killed = target;
              void kill(target);
            }
          });
        }
        if (n === 3) {
          await redis.restart();
          await new Promise((resolve) => setTimeout(resolve, 300)); // the instances reconnect
        }
      },
    );
    try {
      const data = new Random(42).bytes(13 * MiB + 1);
      const root = official(data);
      const outcome = await upload(proxy.endpoint, data, root);
      assert.ok(killed !== undefined, 'an instance was killed');
      const i = instances.indexOf(killed);
      instances[i] = await startInstance(killed.name, killed.port);
      assert.equal(outcome.accepted, true);
      await assertInvariant(outcome, root);
    } finally {
      await proxy.close();
    }
  });

  it('the same upload PATCHed through two instances at once: the lock serialises them, the upload stays whole', async () => {
    const data = new Random(43).bytes(6 * MiB);
    const root = official(data);
    const base = (i: Instance) => `http://127.0.0.1:${i.port}/files`;
    const created = await fetch(base(instances[0]), {
      method: 'POST',
      headers: { 'Tus-Resumable': '1.0.0', 'Upload-Length': String(data.length) },
    });
    const location = new URL(created.headers.get('location')!, base(instances[0])).pathname;
    const patch = (i: Instance, at: number, bytes: Uint8Array) =>
      fetch(`http://127.0.0.1:${i.port}${location}`, {
        method: 'PATCH',
        headers: {
          'Tus-Resumable': '1.0.0',
          'Upload-Offset': String(at),
          'Content-Type': 'application/offset+octet-stream',
          [ROOT_HEADER]: root,
        },
        body: Buffer.from(bytes),
      }).then(
        (r) => r.status,
        () => 0,
      );
    const statuses = await Promise.all([
      patch(instances[1], 0, data.subarray(0, 3 * MiB)),
      patch(instances[2], 0, data.subarray(0, 3 * MiB)),
    ]);
    assert.ok(statuses.includes(204), `one of them wrote: ${statuses}`);
    // The client resumes from the offset the fleet reports and finishes.
    const head = await fetch(`http://127.0.0.1:${instances[0].port}${location}`, {
      method: 'HEAD',
      headers: { 'Tus-Resumable': '1.0.0' },
    });
    const offset = Number(head.headers.get('upload-offset'));
    assert.ok(offset > 0 && offset <= 3 * MiB, `offset ${offset}`);
    const final = await fetch(`http://127.0.0.1:${instances[0].port}${location}`, {
      method: 'PATCH',
      headers: {
        'Tus-Resumable': '1.0.0',
        'Upload-Offset': String(offset),
        'Content-Type': 'application/offset+octet-stream',
        [ROOT_HEADER]: root,
      },
      body: Buffer.from(data.subarray(offset)),
    });
    assert.equal(final.status, 204);
    assert.equal(final.headers.get(VERIFIED_HEADER), root);
    await assertInvariant({ accepted: true, url: location }, root);
  });

  it('a byte flipped on one instance’s path: refused, no object kept', async () => {
    const flipping = await startInstance('flip', await freePort(), { FLIP_AT: String(4 * MiB + 7) });
    const proxy = await startProxy(() => [flipping]);
    try {
      const data = new Random(44).bytes(7 * MiB);
      const root = official(data);
      const outcome = await upload(proxy.endpoint, data, root);
      assert.equal(outcome.accepted, false);
      assert.equal(outcome.accepted === false && outcome.status, 460);
      await assertInvariant(outcome, root);
    } finally {
      await proxy.close();
      await kill(flipping);
    }
  });
});
