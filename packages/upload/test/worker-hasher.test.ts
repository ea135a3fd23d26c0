// The hasher behind a message port, fed slices of a file to read itself: sent all at once, mixed
// with bytes written, some again, they are taken in the order sent and give the reference root.
import { bytesToHex } from '@blake3-web/core';
import { oracle, Random, testSeed } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import type { Endpoint } from 'comlink';
import { CheckpointError, serveHasher, UploadHasher, WorkerHasher, type Checkpoint } from '../src/index.ts';
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
      name: 'WorkerDiedError',
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
      await assert.rejects(hasher.read(1024, new StalledBlob([new Uint8Array(10)])), (e: unknown) => {
        assert.ok(e instanceof DOMException, 'a DOMException, as thrown in the worker');
        assert.equal(e.name, 'NotReadableError');
        assert.match(e.message, /reading the file at 1024: the engine delivered nothing for 100 ms/);
        return true;
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

/** A hasher served on a worker_threads thread, reached through a MessagePort: a real thread boundary. */
function threadHasher(): MessagePort {
  const { port1, port2 } = new MessageChannel();
  const thread = new Worker(new URL('./_hasher-thread.mjs', import.meta.url), {
    workerData: { port: port2 },
    transferList: [port2 as never],
  });
  after(() => thread.terminate());
  return port1;
}

/** What `promise` rejected with, asserted to be an instance of `cls`. */
async function rejection<T extends Error>(
  promise: Promise<unknown>,
  cls: abstract new (...a: never[]) => T,
): Promise<T> {
  const e = await promise.then(
    () => assert.fail('it resolved'),
    (x: unknown) => x,
  );
  assert.ok(e instanceof cls, `${String(e)} is a ${cls.name}`);
  return e as T;
}

describe('WorkerHasher: errors thrown in the worker thread keep their class and fields', () => {
  it('a TypeError and a RangeError arrive as those classes', async () => {
    const bad = await rejection(WorkerHasher.open(threadHasher(), { key: 'a string' as never }), TypeError);
    assert.match(bad.message, /key/);
    const hasher = await WorkerHasher.open(threadHasher());
    await hasher.write(0, new Uint8Array(1000));
    const gap = await rejection(hasher.write(2000, new Uint8Array(10)), RangeError);
    assert.match(gap.message, /offset must be at most 1000.*got 2000/);
    assert.equal(await hasher.write(1000, new Uint8Array(10)), 1010, 'the calls after it still run');
    hasher.close();
    await rejection(hasher.digest(), Error);
  });

  it('a refused checkpoint arrives as a CheckpointError with its reason, whichever way it was sent', async () => {
    const made = new UploadHasher({ upload: 'u' });
    made.write(0, new Uint8Array(5 * 1024));
    const checkpoint = made.checkpoint();
    const opened = await rejection(
      WorkerHasher.open(threadHasher(), { upload: 'u', checkpoint: { ...checkpoint, cvs: 'zz' } as Checkpoint }),
      CheckpointError,
    );
    assert.equal(opened.reason, 'corrupt');
    assert.equal(opened.name, 'CheckpointError');
    const hasher = await WorkerHasher.open(threadHasher());
    const cases: [unknown, string, number, CheckpointError['reason'], RegExp][] = [
      [{ ...checkpoint, check: '00' }, 'u', 10_000, 'corrupt', /checksum/],
      [{ ...checkpoint, version: 2 }, 'u', 10_000, 'version', /version 2/],
      [checkpoint, 'v', 10_000, 'foreign', /belongs to upload "u"/],
      [checkpoint, 'u', checkpoint.offset, 'foreign', /covers (\d+) bytes, the file has \1$/],
    ];
    for (const [value, upload, size, reason, message] of cases) {
      const e = await rejection(hasher.expectCheckpoint(value, upload, size), CheckpointError);
      assert.equal(e.reason, reason);
      assert.match(e.message, message);
    }
    assert.ok(checkpoint.offset > 0);
    assert.equal(await hasher.expectCheckpoint(checkpoint, 'u', 10_000), checkpoint.offset, 'a good one is expected');
    await hasher.write(0, new Uint8Array(6 * 1024));
    assert.equal(hasher.confirmed, true);
    hasher.close();
  });
});
