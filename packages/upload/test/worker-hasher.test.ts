// The hasher behind a message port, fed slices of a file to read itself: sent all at once, mixed
// with bytes written, some again, they are taken in the order sent and give the reference root.
import { bytesToHex } from '@blake3-web/core';
import { oracle, Random, testSeed } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Endpoint } from 'comlink';
import { serveHasher, WorkerHasher } from '../src/index.ts';
import { inThreadHashers } from './_in-thread.ts';

const { createWorker, closeAll } = inThreadHashers();

describe('WorkerHasher.read: the worker reads the slices it is sent', () => {
  after(closeAll);

  it('slices at random boundaries, sent without waiting and some again, give the reference root', async () => {
    const seed = testSeed();
    const rng = new Random(seed ^ 0x2ead);
    const files = Array.from({ length: 12 }, (_, i) => rng.bytes([0, 1, 1024, 1025, 70_000][i] ?? rng.int(2, 400_000)));
    const roots: string[] = [];
    for (const data of files) {
      const file = new Blob([data]);
      const hasher = await WorkerHasher.open(createWorker());
      const calls: Promise<number>[] = [];
      for (let at = 0; at < data.length;) {
        const end = Math.min(data.length, at + rng.int(1, 90_000));
        // Some slices are sent again from before the offset taken; some go as bytes read here.
        const start = rng.int(0, 3) === 0 ? Math.max(0, at - rng.int(1, 5000)) : at;
        calls.push(
          rng.int(0, 2) === 0
            ? hasher.write(start, data.slice(start, end))
            : hasher.read(start, file.slice(start, end)),
        );
        at = end;
      }
      const offsets = await Promise.all(calls);
      assert.deepEqual(
        offsets,
        [...offsets].sort((a, b) => a - b),
        'answered in the order sent',
      );
      roots.push(bytesToHex(await hasher.digest()));
      hasher.close();
    }
    const expected = oracle(files.map((data) => ({ data, length: 32 })));
    roots.forEach((root, i) => assert.equal(root, expected[i], `seed ${seed}, file ${i}: ${files[i].length} bytes`));
  });

  it('a read that would leave a gap is refused, and the calls after it still run', async () => {
    const data = new Random(5).bytes(5000);
    const file = new Blob([data]);
    const hasher = await WorkerHasher.open(createWorker());
    const first = hasher.read(0, file.slice(0, 1000));
    const gap = hasher.read(2000, file.slice(2000, 3000));
    const rest = hasher.read(1000, file.slice(1000));
    assert.equal(await first, 1000);
    await assert.rejects(gap, { name: 'RangeError', message: /offset must be at most 1000.*got 2000/ });
    assert.equal(await rest, 5000);
    assert.equal(bytesToHex(await hasher.digest()), oracle([{ data, length: 32 }])[0]);
    hasher.close();
  });

  it('refuses what is not a Blob, naming the argument', async () => {
    const hasher = await WorkerHasher.open(createWorker());
    await assert.rejects(hasher.read(0, new Uint8Array(3) as unknown as Blob), {
      name: 'TypeError',
      message: /blob must be a Blob, got a Uint8Array/,
    });
    await assert.rejects(hasher.read(-1, new Blob([])), { name: 'RangeError', message: /offset/ });
    hasher.close();
  });
});

describe('WorkerHasher.open: a worker that never starts', () => {
  it('rejects once the worker has been silent too long, instead of hanging', { timeout: 5000 }, async () => {
    const { port1, port2 } = new MessageChannel(); // nothing serves port2: a worker whose script never ran
    const started = performance.now();
    await assert.rejects(WorkerHasher.open(port1, {}, 200), {
      name: 'Error',
      message: /the hashing worker did not answer within 200 ms/,
    });
    assert.ok(performance.now() - started < 2000);
    port2.close();
  });
});

/**
 * Two comlink endpoints that hand messages over as they are (no structured clone), so a Blob keeps
 * its class. `kill()` silences the second, as a worker killed from outside or stuck in a loop is.
 */
function directPair(): [Endpoint, Endpoint] & { kill(): void } {
  const listeners = [new Set<EventListenerOrEventListenerObject>(), new Set<EventListenerOrEventListenerObject>()];
  let dead = false;
  const end = (i: 0 | 1): Endpoint => ({
    postMessage: (data: unknown) =>
      queueMicrotask(() => {
        if (dead) return;
        for (const l of listeners[1 - i]) (typeof l === 'function' ? l : l.handleEvent)({ data } as MessageEvent);
      }),
    addEventListener: (type: string, l: EventListenerOrEventListenerObject) => {
      if (type === 'message') listeners[i].add(l);
    },
    removeEventListener: (_type: string, l: EventListenerOrEventListenerObject) => listeners[i].delete(l),
  });
  return Object.assign([end(0), end(1)] as [Endpoint, Endpoint], { kill: () => void (dead = true) });
}

describe('WorkerHasher.read: a read of the file that stalls', () => {
  it(
    'fails with NotReadableError once nothing has come for the stall time, instead of hanging',
    { timeout: 5000 },
    async () => {
      // A slice whose stream never delivers a byte, as a stalled engine read does.
      class StalledBlob extends Blob {
        override stream(): ReadableStream<Uint8Array<ArrayBuffer>> {
          return new ReadableStream({ pull: () => new Promise<void>(() => undefined) });
        }
      }
      const [page, worker] = directPair();
      serveHasher(worker, 100);
      const hasher = await WorkerHasher.open(page);
      await hasher.write(0, new Uint8Array(1024));
      await assert.rejects(hasher.read(1024, new StalledBlob([new Uint8Array(10)])), {
        name: 'NotReadableError',
        message: /reading the file at 1024: the engine delivered nothing for 100 ms/,
      });
      assert.equal(await hasher.read(1024, new Blob([new Uint8Array(10)])), 1034, 'the calls after it still run');
      hasher.close();
    },
  );
});

describe('WorkerHasher: a worker that stops answering', () => {
  // The probe's timer does not keep a process alive, and these endpoints have no I/O that would.
  let alive: ReturnType<typeof setInterval>;
  before(() => void (alive = setInterval(() => undefined, 1000)));
  after(() => clearInterval(alive));

  it('fails the calls waiting on it with WorkerDiedError once a probe goes unanswered', { timeout: 5000 }, async () => {
    const pair = directPair();
    serveHasher(pair[1]);
    const hasher = await WorkerHasher.open(pair[0], {}, 15_000, 100);
    await hasher.write(0, new Uint8Array(2048));
    pair.kill();
    const started = performance.now();
    await assert.rejects(hasher.write(2048, new Uint8Array(10)), {
      name: 'WorkerDiedError',
      message: /the hashing worker did not answer for \d+ ms/,
    });
    assert.ok(performance.now() - started < 2000);
    await assert.rejects(hasher.digest(), { name: 'WorkerDiedError' }, 'later calls fail too');
  });

  it(
    'a live worker waiting on a slow read answers the probe: the read is not cut short by it',
    { timeout: 5000 },
    async () => {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      class SlowBlob extends Blob {
        override stream(): ReadableStream<Uint8Array<ArrayBuffer>> {
          let sent = false;
          return new ReadableStream({
            pull: async (c) => {
              if (sent) return c.close();
              await released;
              sent = true;
              c.enqueue(new Uint8Array(10));
            },
          });
        }
      }
      const pair = directPair();
      serveHasher(pair[1]);
      const hasher = await WorkerHasher.open(pair[0], {}, 15_000, 50);
      const read = hasher.read(0, new SlowBlob([new Uint8Array(10)]));
      setTimeout(release, 600); // a dozen probe periods
      assert.equal(await read, 10);
      hasher.close();
    },
  );
});
