// The browser's default worker, with a stand-in for Web Workers: which ways of starting it are
// tried, how often, what happens to messages meanwhile, and what a hash reports when none
// starts. Runs the built files (dist/worker-source.js exists only there); each test imports its
// own copy of the module, whose memory of failed ways lasts a page's life.
import { provideErrorEvent } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type { Platform } from '../src/_platform.ts';
import { KiB, MiB, settlesWithin } from './_helpers.ts';

type DefaultWorkerModule = typeof import('../src/_default-worker-browser.ts');
type PoolModule = typeof import('../src/pool.ts');

const dist = new URL('../dist/', import.meta.url);
const { WORKER_READY } = (await import(new URL('protocol.js', dist).href)) as typeof import('../src/protocol.ts');
const { createPoolOn } = (await import(new URL('pool.js', dist).href)) as PoolModule;
const { browserPlatform } = (await import(
  new URL('platform-browser.js', dist).href
)) as typeof import('../src/platform-browser.ts');
const { WorkerStartError } = (await import(new URL('_errors.js', dist).href)) as typeof import('../src/_errors.ts');

provideErrorEvent();

/** What a stand-in worker does: load and say it is ready, fail to load, or be refused outright. */
type Outcome = 'ready' | 'fails to load' | 'refused';

class StandInWorker extends EventTarget {
  static outcome: (kind: 'file' | 'blob') => Outcome;
  static started: StandInWorker[] = [];
  readonly kind: 'file' | 'blob';
  readonly posted: unknown[] = [];
  terminated = false;

  constructor(url: URL | string) {
    super();
    this.kind = String(url).startsWith('blob:') ? 'blob' : 'file';
    const outcome = StandInWorker.outcome(this.kind);
    if (outcome === 'refused') throw new DOMException('refused by the Content-Security-Policy', 'SecurityError');
    StandInWorker.started.push(this);
    setTimeout(() => {
      if (outcome === 'fails to load') this.dispatchEvent(new Event('error', { cancelable: true }));
      else this.dispatchEvent(new MessageEvent('message', { data: WORKER_READY }));
    }, 5);
  }

  postMessage(message: unknown): void {
    this.posted.push(message);
  }

  terminate(): void {
    this.terminated = true;
  }
}
(globalThis as { Worker?: unknown }).Worker = StandInWorker;

let copies = 0;
async function freshModule(): Promise<DefaultWorkerModule> {
  return (await import(`${new URL('_default-worker-browser.js', dist).href}?copy=${++copies}`)) as DefaultWorkerModule;
}

const kinds = () => StandInWorker.started.map((w) => w.kind);

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('the default browser worker', () => {
  beforeEach(() => {
    StandInWorker.started = [];
  });

  it('starts from the file when it loads, and passes messages posted meanwhile once, in order', async () => {
    StandInWorker.outcome = () => 'ready';
    const { DefaultWorker } = await freshModule();
    const worker = new DefaultWorker();
    worker.postMessage('first');
    worker.postMessage('second');
    await until(() => StandInWorker.started[0]?.posted.length === 2, 'the queued messages');
    assert.deepEqual(kinds(), ['file']);
    assert.deepEqual(StandInWorker.started[0].posted, ['first', 'second']);
    worker.postMessage('third');
    assert.deepEqual(StandInWorker.started[0].posted, ['first', 'second', 'third']);
  });

  it('starts from its source when the file does not load, and later workers skip the file', async () => {
    StandInWorker.outcome = (kind) => (kind === 'file' ? 'fails to load' : 'ready');
    const { DefaultWorker } = await freshModule();
    const worker = new DefaultWorker();
    const answers: unknown[] = [];
    worker.addEventListener('message', (e) => answers.push((e as MessageEvent).data));
    worker.postMessage('task');
    await until(() => StandInWorker.started[1]?.posted.length === 1, 'the task on the second worker');
    assert.deepEqual(kinds(), ['file', 'blob']);
    assert.deepEqual(StandInWorker.started[0].posted, [], 'nothing was posted to the worker that did not load');
    assert.ok(StandInWorker.started[0].terminated);
    assert.deepEqual(StandInWorker.started[1].posted, ['task']);
    StandInWorker.started[1].dispatchEvent(new MessageEvent('message', { data: 'answer' }));
    assert.deepEqual(answers, ['answer'], 'messages after the ready one reach the listeners');

    new DefaultWorker();
    await until(() => StandInWorker.started.length === 3, 'the next worker');
    assert.deepEqual(kinds(), ['file', 'blob', 'blob']);
  });

  it('when no way starts, a hash rejects at once with a WorkerStartError naming the fix, and no worker is tried again', async () => {
    StandInWorker.outcome = (kind) => (kind === 'file' ? 'fails to load' : 'refused');
    const { DefaultWorker } = await freshModule();
    const platform: Platform = {
      ...browserPlatform,
      spawnDefaultWorker: () => new DefaultWorker() as unknown as Worker,
    };
    // A liveness probe this slow cannot be what ends the hash.
    const pool = createPoolOn(platform, { size: 2, subtreeBytes: 64 * KiB }, { livenessMs: 600_000 });
    const blob = new Blob([new Uint8Array(1 * MiB)]);
    const isStartError = (e: unknown) => {
      assert.ok(e instanceof WorkerStartError, String(e));
      assert.match(
        e.message,
        /did not load \(an 'error' event\), and a blob: worker of its source did not start either \(SecurityError: refused/,
      );
      assert.match(e.message, /worker-src 'self' blob:/);
      return true;
    };
    await assert.rejects(settlesWithin(pool.hashBlob(blob), 10_000, 'the first hash'), isStartError);
    const tried = StandInWorker.started.length;
    assert.ok(tried >= 1 && tried <= 2, `one file worker per pool slot at most, got ${tried}`);
    assert.ok(kinds().every((k) => k === 'file'));
    await assert.rejects(settlesWithin(pool.hashBlob(blob), 10_000, 'the second hash'), isStartError);
    assert.equal(StandInWorker.started.length, tried, 'no worker was started for the second hash');
    pool.terminate();
  });
});
