// The package's hashing worker in browsers, with a stand-in for Web Workers: from its file, else
// from a blob: URL of its source, else a WorkerStartError at once naming the fix. Runs the built
// files (dist/hash-worker-source.js exists only there); each test imports its own copy of the
// module, whose memory of failed ways lasts a page's life.
import { oracle, paint, provideErrorEvent } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { resolveObjectURL } from 'node:buffer';
import { beforeEach, describe, it } from 'node:test';

const dist = new URL('../dist/', import.meta.url);
const { HASHER_READY } = (await import(
  new URL('_hasher-protocol.js', dist).href
)) as typeof import('../src/_hasher-protocol.ts');
const { WorkerHasher } = (await import(new URL('index.js', dist).href)) as typeof import('../src/index.ts');
const { WorkerStartError } = await import('@blake3-web/worker/_internal');

provideErrorEvent();

type Outcome = 'ready' | 'fails to load' | 'refused';

/** A Worker that loads (says it is ready, then answers comlink's calls with a served hasher) or not. */
class StandInWorker extends EventTarget {
  static outcome: (kind: 'file' | 'blob') => Outcome;
  static started: StandInWorker[] = [];
  readonly url: string;
  readonly kind: 'file' | 'blob';
  readonly port: MessagePort | undefined;

  constructor(url: URL | string) {
    super();
    this.url = String(url);
    this.kind = this.url.startsWith('blob:') ? 'blob' : 'file';
    const outcome = StandInWorker.outcome(this.kind);
    if (outcome === 'refused') throw new DOMException('refused by the Content-Security-Policy', 'SecurityError');
    StandInWorker.started.push(this);
    if (outcome === 'fails to load') {
      setTimeout(() => this.dispatchEvent(new Event('error', { cancelable: true })), 5);
      return;
    }
    // The worker's global scope: a port served by the package's own serveHasher.
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    port1.onmessage = (e) => this.dispatchEvent(new MessageEvent('message', { data: e.data }));
    void import(new URL('serve-hasher.js', dist).href).then(({ serveHasher }) => {
      serveHasher(port2);
      port2.postMessage(HASHER_READY);
    });
  }

  postMessage(message: unknown, transfer: Transferable[] = []): void {
    this.port?.postMessage(message, transfer);
  }

  terminate(): void {
    this.port?.close();
  }
}
(globalThis as { Worker?: unknown }).Worker = StandInWorker;

let copies = 0;
async function freshStart(): Promise<() => import('../src/worker-hasher.ts').HasherEndpoint> {
  const mod = (await import(
    `${new URL('_default-worker.js', dist).href}?copy=${++copies}`
  )) as typeof import('../src/_default-worker.ts');
  return mod.startHashWorker;
}

const kinds = () => StandInWorker.started.map((w) => w.kind);

async function rootOf(
  start: () => import('../src/worker-hasher.ts').HasherEndpoint,
  data: Uint8Array<ArrayBuffer>,
): Promise<string> {
  const hasher = await WorkerHasher.open(start());
  try {
    await hasher.read(0, new Blob([data]));
    return Buffer.from(await hasher.digest()).toString('hex');
  } finally {
    hasher.close();
  }
}

describe("the upload's hashing worker starts whatever bundled the page", () => {
  const data = paint(5000);
  const expected = oracle([{ data, length: 32 }])[0];

  beforeEach(() => {
    StandInWorker.started = [];
  });

  it('from its file, when it loads', async () => {
    StandInWorker.outcome = () => 'ready';
    const start = await freshStart();
    assert.equal(await rootOf(start, data), expected);
    assert.deepEqual(kinds(), ['file']);
    assert.match(StandInWorker.started[0].url, /\/dist\/hash-worker\.bundle\.js$/);
  });

  it('from a blob: URL of its source when the file does not load, and later workers skip the file', async () => {
    StandInWorker.outcome = (kind) => (kind === 'file' ? 'fails to load' : 'ready');
    const start = await freshStart();
    assert.equal(await rootOf(start, data), expected);
    assert.deepEqual(kinds(), ['file', 'blob']);
    const source = await resolveObjectURL(StandInWorker.started[1].url)!.text();
    assert.ok(
      source.includes(JSON.stringify(HASHER_READY)),
      'the blob holds the hashing worker, which says it is ready',
    );
    assert.doesNotMatch(source, /sourceMappingURL/, 'no source map a blob: URL could not resolve');
    assert.equal(await rootOf(start, data), expected);
    assert.deepEqual(kinds(), ['file', 'blob', 'blob']);
  });

  it('when neither way starts, WorkerHasher.open rejects at once with a WorkerStartError naming the fix', async () => {
    StandInWorker.outcome = (kind) => (kind === 'file' ? 'fails to load' : 'refused');
    const start = await freshStart();
    const began = performance.now();
    const isStartError = (e: unknown) => {
      assert.ok(e instanceof WorkerStartError, String(e));
      assert.match(
        e.message,
        /^the upload's hashing worker did not start: .*\/dist\/hash-worker\.bundle\.js did not load \(an 'error' event\), and a blob: worker of its source did not start either \(SecurityError: refused/,
      );
      assert.match(e.message, /worker-src 'self' blob:.*serve @blake3-web\/upload\/dist\/hash-worker\.bundle\.js/);
      return true;
    };
    await assert.rejects(WorkerHasher.open(start()), isStartError);
    assert.ok(performance.now() - began < 2000, 'long before the 15 s start timeout');
    await assert.rejects(WorkerHasher.open(start()), isStartError);
    assert.deepEqual(kinds(), ['file'], 'no way that failed was tried again');
  });
});
