import { blake3, bytesToHex } from '@blake3-web/core';
import { oracle, paint } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { renameSync, statSync, truncateSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker as NodeWorker, type Worker, type WorkerOptions } from 'node:worker_threads';
import { after, describe, it } from 'node:test';
import { createPool, type Pool, type PoolOpts } from '../src/index-node.ts';
import { createPoolOn } from '../src/pool.ts';
import { nodePlatform } from '../src/platform-node.ts';
import { KiB, loadedWorker, scriptWorker, settlesWithin, sourceWorker, tempDir } from './_helpers.ts';

const S = 64 * KiB;
const HANG_GUARD_MS = 60_000;

function pool(opts: PoolOpts = {}, livenessMs?: number): Pool {
  const p = createPoolOn(
    nodePlatform,
    { size: 2, subtreeBytes: S, createWorker: sourceWorker, ...opts },
    { livenessMs },
  );
  after(() => p.terminate());
  return p;
}

describe('abort', () => {
  it('mid-way rejects with signal.reason, and the pool still hashes', async () => {
    const p = pool();
    const input = paint(200 * S);
    const controller = new AbortController();
    const reason = new Error('user cancelled');
    let last = 0;
    const hashing = p.hashBlob(new Blob([input]), {
      signal: controller.signal,
      onProgress: (done) => {
        last = done;
        if (done >= 10 * S) controller.abort(reason);
      },
    });
    await assert.rejects(settlesWithin(hashing, HANG_GUARD_MS, 'aborted hash'), (e) => e === reason);
    assert.ok(last < input.length, 'it stopped before the end');
    assert.deepEqual(await settlesWithin(p.hashBlob(new Blob([input])), HANG_GUARD_MS, 'next hash'), blake3(input));
  });

  it('an already aborted signal rejects at once with its reason (a DOMException AbortError by default)', async () => {
    const p = pool();
    await assert.rejects(p.hashBlob(new Blob([paint(10 * S)]), { signal: AbortSignal.abort() }), {
      name: 'AbortError',
    });
    const reason = new RangeError('why not');
    await assert.rejects(p.hashBlob(new Blob([paint(10)]), { signal: AbortSignal.abort(reason) }), (e) => e === reason);
  });

  it('stops outstanding work: no task starts after the abort', async () => {
    let started = 0;
    const p = pool({
      size: 1,
      createWorker: () => {
        started++;
        return sourceWorker();
      },
    });
    const controller = new AbortController();
    let progressCalls = 0;
    const hashing = p.hashBlob(new Blob([paint(400 * S)]), {
      signal: controller.signal,
      onProgress: () => {
        if (++progressCalls === 2) controller.abort();
      },
    });
    await assert.rejects(hashing, { name: 'AbortError' });
    // Tasks already in flight may finish; with one worker and two tasks in flight, at most a
    // couple more progress-worthy results could have existed, and none is reported.
    const callsAtAbort = progressCalls;
    await p.hashBlob(new Blob([paint(3 * S)]));
    assert.equal(progressCalls, callsAtAbort, 'no progress after the abort');
    assert.equal(started, 1, 'the worker was not replaced');
  });
});

describe('worker deaths', () => {
  it('a worker killed mid-call is replaced and its task retried: the hash is right', async () => {
    const workers: Worker[] = [];
    const p = pool({
      createWorker: () => {
        const w = sourceWorker();
        workers.push(w);
        return w;
      },
    });
    const input = paint(300 * S + 99);
    let killed = false;
    const hash = await settlesWithin(
      p.hashBlob(new Blob([input]), {
        onProgress: (done) => {
          if (!killed && done >= 20 * S) {
            killed = true;
            void workers[0].terminate();
          }
        },
      }),
      HANG_GUARD_MS,
      'hash with a killed worker',
    );
    assert.deepEqual(hash, blake3(input));
    assert.equal(workers.length, 3, 'one replacement worker was started');
    assert.deepEqual(await p.hashBlob(new Blob([input])), blake3(input));
  });

  it('a task that kills its worker twice rejects with WorkerDiedError, and the pool recovers', async () => {
    let crashing = true;
    const p = pool({ createWorker: () => (crashing ? scriptWorker('./_crashing-worker.mjs') : sourceWorker()) });
    await assert.rejects(
      settlesWithin(p.hashBlob(new Blob([paint(8 * S)])), HANG_GUARD_MS, 'hash on crashing workers'),
      {
        name: 'WorkerDiedError',
        message: /stopped twice.*exited with code 7/,
      },
    );
    crashing = false;
    assert.deepEqual(await p.hashBlob(new Blob([paint(8 * S)])), blake3(paint(8 * S)));
  });

  it('a worker that stops answering is found by the liveness probe: rejects, never hangs', async () => {
    const p = pool({ createWorker: () => scriptWorker('./_silent-worker.mjs') }, 100);
    await assert.rejects(settlesWithin(p.hashBlob(new Blob([paint(4 * S)])), HANG_GUARD_MS, 'hash on silent workers'), {
      name: 'WorkerDiedError',
      message: /did not answer/,
    });
  });

  it('a worker script that fails to load rejects with the reason', async () => {
    const p = pool({ createWorker: () => scriptWorker('./_no-such-worker.mjs') });
    await assert.rejects(settlesWithin(p.hashBlob(new Blob([paint(4 * S)])), HANG_GUARD_MS, 'hash'), {
      name: 'WorkerDiedError',
      message: /_no-such-worker/,
    });
  });

  it('a worker answering with a wrong-sized value rejects the hash instead of merging it', async () => {
    const p = pool({ createWorker: () => scriptWorker('./_wrong-worker.mjs') });
    await assert.rejects(settlesWithin(p.hashBlob(new Blob([paint(4 * S)])), HANG_GUARD_MS, 'hash'), {
      name: 'TypeError',
      message: /answered a Uint8Array of 31 bytes.*not 32 bytes/,
    });
  });

  it('createWorker throwing rejects the hash with its error', async () => {
    const oops = new Error('no workers allowed');
    const p = pool({
      createWorker: () => {
        throw oops;
      },
    });
    await assert.rejects(p.hashBlob(new Blob([paint(4 * S)])), (e) => e === oops);
  });
});

describe('a busy worker', () => {
  // The probe waits `LIVENESS_MS` of silence, then as long again for an answer: every task below
  // keeps its worker busy for several times that, and the worker must still count as alive. A
  // window of a second leaves a loaded machine time to schedule the worker's thread.
  const LIVENESS_MS = 1000;

  /** `createWorker` for a pool of 2: two workers already loaded, then fresh ones. */
  async function loadedWorkers(name: string, opts: WorkerOptions): Promise<() => Worker> {
    const loaded = [await loadedWorker(name, opts), await loadedWorker(name, opts)];
    after(() => loaded.forEach((w) => void w.terminate()));
    return () => loaded.shift() ?? new NodeWorker(new URL(name, import.meta.url), opts);
  }

  it('a worker whose every file read takes longer than the liveness window is not declared dead: the hash is right', async () => {
    const path = join(tempDir(), 'slow-disk.bin');
    const data = paint(3 * S + 99, 3);
    writeFileSync(path, data);
    const opts = { workerData: { delayMs: 4 * LIVENESS_MS } };
    const p = pool({ createWorker: await loadedWorkers('./_slow-disk-worker.mjs', opts) }, LIVENESS_MS);
    const hash = await settlesWithin(p.hashFile(path), HANG_GUARD_MS, 'hash on a slow disk');
    assert.equal(bytesToHex(hash), oracle([{ data, length: 32 }])[0]);
  });

  it('a task whose reads never let the event loop turn, busy for many liveness windows, still answers the probe', async () => {
    const path = join(tempDir(), 'busy.bin');
    const data = paint(3 * 32 * 4 * KiB + 5, 4);
    writeFileSync(path, data);
    // 32 pieces of 100 ms per task: 3.2 s of a thread that never waits.
    const opts = { workerData: { pieceBytes: 4 * KiB, pieceMs: LIVENESS_MS / 10 } };
    const p = pool(
      { subtreeBytes: 32 * 4 * KiB, createWorker: await loadedWorkers('./_busy-reader-worker.mjs', opts) },
      LIVENESS_MS,
    );
    const hash = await settlesWithin(p.hashFile(path, { context: 'busy' }), HANG_GUARD_MS, 'hash on a busy worker');
    assert.equal(bytesToHex(hash), oracle([{ data, length: 32, context: 'busy' }])[0]);
  });

  it('a worker stuck in a loop is still found dead by the probe', async () => {
    const p = pool({ createWorker: () => scriptWorker('./_looping-worker.mjs') }, LIVENESS_MS);
    await assert.rejects(
      settlesWithin(p.hashBlob(new Blob([paint(4 * S)])), HANG_GUARD_MS, 'hash on looping workers'),
      {
        name: 'WorkerDiedError',
        message: /stopped twice.*did not answer/,
      },
    );
  });
});

describe('read errors', () => {
  it('a file that vanishes mid-hash rejects with ENOENT from the worker, intact', async () => {
    const path = join(tempDir(), 'vanishing.bin');
    writeFileSync(path, paint(200 * S));
    const p = pool();
    let removed = false;
    const hashing = p.hashFile(path, {
      onProgress: () => {
        if (!removed) {
          removed = true;
          unlinkSync(path);
        }
      },
    });
    await assert.rejects(
      settlesWithin(hashing, HANG_GUARD_MS, 'hash of a vanishing file'),
      (e: NodeJS.ErrnoException) => {
        assert.equal(e.code, 'ENOENT');
        assert.equal(e.syscall, 'open');
        assert.match(e.message, /^ENOENT: no such file or directory, open .*vanishing\.bin/);
        assert.match(e.stack ?? '', /ENOENT/);
        return true;
      },
    );
    assert.deepEqual(await p.hashBlob(new Blob([paint(10 * S)])), blake3(paint(10 * S)), 'the pool still hashes');
  });

  it('a file that shrinks mid-hash rejects with NotReadableError, never a hash', async () => {
    const path = join(tempDir(), 'shrinking.bin');
    writeFileSync(path, paint(200 * S));
    const p = pool();
    let cut = false;
    const hashing = p.hashFile(path, {
      onProgress: () => {
        if (!cut) {
          cut = true;
          truncateSync(path, 100 * S);
        }
      },
    });
    await assert.rejects(settlesWithin(hashing, HANG_GUARD_MS, 'hash of a shrinking file'), (e: Error) => {
      assert.ok(e instanceof DOMException);
      assert.equal(e.name, 'NotReadableError');
      assert.match(e.message, /changed while it was being hashed/);
      return true;
    });
  });

  it('a file replaced mid-hash by another of the same size and mtime rejects with NotReadableError', async () => {
    // As `cp -p`, `rsync -t` or `tar x` leave a file: only its inode tells it apart.
    const dir = tempDir();
    const path = join(dir, 'replaced.bin');
    const other = join(dir, 'other.bin');
    writeFileSync(path, paint(200 * S));
    writeFileSync(other, paint(200 * S, 1));
    const when = new Date(1_700_000_000_000);
    utimesSync(path, when, when);
    utimesSync(other, when, when);
    const [a, b] = [statSync(path, { bigint: true }), statSync(other, { bigint: true })];
    assert.equal(a.size, b.size);
    assert.equal(a.mtimeNs, b.mtimeNs);
    const p = pool();
    let replaced = false;
    const hashing = p.hashFile(path, {
      onProgress: () => {
        if (!replaced) {
          replaced = true;
          renameSync(other, path);
        }
      },
    });
    await assert.rejects(settlesWithin(hashing, HANG_GUARD_MS, 'hash of a replaced file'), (e: Error) => {
      assert.ok(e instanceof DOMException, String(e));
      assert.equal(e.name, 'NotReadableError');
      assert.match(e.message, /replaced\.bin changed while it was being hashed \(another file was put at its path\)/);
      return true;
    });
    assert.ok(replaced, 'the file was replaced while the hash ran');
  });

  it('a Blob whose slices hold fewer or more bytes than asked rejects with NotReadableError, never a hash', async () => {
    const p = pool();
    for (const total of [10, 200 * S]) {
      for (const delta of [-1, 1]) {
        const data = paint(total + 1);
        const tagged = {
          [Symbol.toStringTag]: 'Blob',
          size: total,
          slice: (start: number, end: number) => new Blob([data.subarray(start, end + delta)]),
        } as unknown as Blob;
        await assert.rejects(settlesWithin(p.hashBlob(tagged), HANG_GUARD_MS, `hash of slices ${delta} byte off`), {
          name: 'NotReadableError',
          message: /^reading bytes \[\d+, \d+\) gave \d+ bytes/,
        });
      }
    }
  });

  it('a Blob read on this thread (blobTransport bytes) that never settles rejects the hash with NotReadableError', async () => {
    const data = paint(200 * S);
    let stalled = 0;
    // Every slice from byte 2 S on never gives its bytes, as a stalled engine read would.
    const stuck = {
      [Symbol.toStringTag]: 'Blob',
      size: data.length,
      slice: (start: number, end: number) => {
        if (start < 2 * S) return new Blob([data.subarray(start, end)]);
        stalled++;
        return { arrayBuffer: () => new Promise(() => undefined) };
      },
    } as unknown as Blob;
    const p = createPoolOn(nodePlatform, { size: 2, subtreeBytes: S, createWorker: sourceWorker }, { stallMs: 50 });
    after(() => p.terminate());
    const t0 = performance.now();
    await assert.rejects(settlesWithin(p.hashBlob(stuck), 10_000, 'hash of a stalled Blob'), {
      name: 'NotReadableError',
      message: /^reading bytes \[\d+, \d+\): the engine delivered nothing for 50 ms/,
    });
    assert.ok(stalled > 0 && performance.now() - t0 < HANG_GUARD_MS);
    // Every read in flight settled too: the pool takes the next hash at once.
    assert.deepEqual(await settlesWithin(p.hashBlob(new Blob([data])), HANG_GUARD_MS, 'next hash'), blake3(data));
  });

  it('a missing path rejects with ENOENT, a directory with TypeError', async () => {
    const p = pool();
    await assert.rejects(p.hashFile(join(tempDir(), 'missing.bin')), { code: 'ENOENT' });
    await assert.rejects(p.hashFile(tempDir()), { name: 'TypeError', message: /regular file/ });
  });
});

describe('terminate', () => {
  it('rejects pending hashes with AbortError and later ones with InvalidStateError', async () => {
    const p = pool();
    const pending = [p.hashBlob(new Blob([paint(300 * S)])), p.hashBlob(new Blob([paint(50 * S)]))];
    await new Promise((resolve) => setTimeout(resolve, 20));
    p.terminate();
    for (const hashing of pending) {
      await assert.rejects(settlesWithin(hashing, HANG_GUARD_MS, 'pending hash'), {
        name: 'AbortError',
        message: /terminated/,
      });
    }
    await assert.rejects(p.hashBlob(new Blob([paint(10)])), { name: 'InvalidStateError' });
    p.terminate();
  });

  it('rejects a hash still finding its input (a path being stat-ed) with AbortError', async () => {
    const path = join(tempDir(), 'input.bin');
    writeFileSync(path, paint(10 * S));
    const p = pool();
    const hashing = p.hashFile(path);
    p.terminate();
    await assert.rejects(settlesWithin(hashing, HANG_GUARD_MS, 'pending hash'), { name: 'AbortError' });
  });
});

describe('bad arguments', () => {
  it('createPool names the argument', () => {
    assert.throws(() => createPool({ size: 0 }), { name: 'RangeError', message: /opts.size.*got 0/ });
    assert.throws(() => createPool({ size: 1.5 }), { name: 'RangeError', message: /opts.size/ });
    assert.throws(() => createPool({ size: '2' as never }), {
      name: 'TypeError',
      message: /opts.size must be a number, got a string/,
    });
    assert.throws(() => createPool({ subtreeBytes: 3000 }), {
      name: 'RangeError',
      message: /opts.subtreeBytes.*power of two.*3000/,
    });
    assert.throws(() => createPool({ subtreeBytes: 512 }), { name: 'RangeError', message: /opts.subtreeBytes/ });
    assert.throws(() => createPool({ createWorker: 'worker.js' as never }), {
      name: 'TypeError',
      message: /opts.createWorker must be a function/,
    });
    assert.throws(() => createPool(42 as never), { name: 'TypeError', message: /opts must be an object/ });
  });

  it('hashBlob and hashFile name the argument', async () => {
    const p = pool();
    const blob = new Blob([paint(10)]);
    await assert.rejects(p.hashBlob('hello' as never), {
      name: 'TypeError',
      message: /blob must be a Blob or File, got a string/,
    });
    await assert.rejects(p.hashBlob(new Uint8Array(4) as never), { name: 'TypeError', message: /blob.*Uint8Array/ });
    await assert.rejects(p.hashFile(42 as never), {
      name: 'TypeError',
      message: /file must be a Blob, a File or a path/,
    });
    await assert.rejects(p.hashFile(''), { name: 'TypeError', message: /empty string/ });
    await assert.rejects(p.hashBlob(blob, { dkLen: -1 }), { name: 'RangeError', message: /opts.dkLen/ });
    await assert.rejects(p.hashBlob(blob, { dkLen: 2 ** 40 }), {
      name: 'RangeError',
      message: /^opts.dkLen must be at most 2\^30/,
    });
    await assert.rejects(p.hashBlob(blob, { dkLen: '32' as never }), { name: 'TypeError', message: /opts.dkLen/ });
    await assert.rejects(p.hashBlob(blob, { key: new Uint8Array(31) }), {
      name: 'RangeError',
      message: /opts.key must be 32 bytes/,
    });
    await assert.rejects(p.hashBlob(blob, { key: new Uint8Array(32), context: 'x' }), {
      name: 'TypeError',
      message: /key and opts.context/,
    });
    await assert.rejects(p.hashBlob(blob, { context: 7 as never }), {
      name: 'TypeError',
      message: /opts.context must be a string/,
    });
    await assert.rejects(p.hashBlob(blob, { signal: {} as never }), {
      name: 'TypeError',
      message: /opts.signal must be an AbortSignal/,
    });
    await assert.rejects(p.hashBlob(blob, { onProgress: 1 as never }), {
      name: 'TypeError',
      message: /opts.onProgress must be a function/,
    });
    await assert.rejects(p.hashBlob(blob, 'fast' as never), { name: 'TypeError', message: /opts must be an object/ });
    // A worker that returns nonsense is not trusted either.
    const q = pool({ createWorker: () => ({}) as never });
    await assert.rejects(q.hashBlob(new Blob([paint(4 * S)])), {
      name: 'TypeError',
      message: /createWorker must return a Worker/,
    });
  });

  it('a Blob whose size is not a safe non-negative integer is rejected up front, naming its size; never pends', async () => {
    const p = pool();
    const data = paint(200 * S);
    const sizes: [unknown, string, RegExp][] = [
      [NaN, 'RangeError', /must be an integer from 0 to 9007199254740991, got NaN$/],
      [-1, 'RangeError', /got -1$/],
      [-Infinity, 'RangeError', /got -Infinity$/],
      [1.5, 'RangeError', /got 1.5$/],
      [100 * S + 0.5, 'RangeError', /got 6553600.5$/],
      [2 ** 53, 'RangeError', /got 9007199254740992$/],
      [Infinity, 'RangeError', /got Infinity$/],
      ['4096', 'TypeError', /must be a number, got a string of length 4$/],
      [4096n, 'TypeError', /must be a number, got 4096n$/],
      [undefined, 'TypeError', /must be a number, got undefined$/],
      [null, 'TypeError', /must be a number, got null$/],
    ];
    for (const [size, name, message] of sizes) {
      // A Blob whose own size getter lies, and an object that only looks like a Blob.
      const lying = Object.defineProperty(new Blob([data]), 'size', { get: () => size });
      const tagged = {
        [Symbol.toStringTag]: 'Blob',
        size,
        slice: (a: number, b: number) => new Blob([data.subarray(a, b)]),
      } as unknown as Blob;
      for (const [what, hashing] of [
        ['blob', p.hashBlob(lying)],
        ['blob', p.hashBlob(tagged)],
        ['file', p.hashFile(lying)],
        ['file', p.hashFile(tagged)],
      ] as const) {
        await assert.rejects(
          settlesWithin(hashing, HANG_GUARD_MS, `hash of a Blob of size ${String(size)}`),
          (e: Error) => {
            assert.equal(e.name, name, `size ${String(size)}: ${e.message}`);
            assert.ok(e.message.startsWith(`${what}.size must be`), e.message);
            assert.match(e.message, message);
            return true;
          },
        );
      }
    }
    const oops = new Error('size unknown');
    const throwing = Object.defineProperty(new Blob([data]), 'size', {
      get: () => {
        throw oops;
      },
    });
    await assert.rejects(p.hashBlob(throwing), (e) => e === oops);
  });

  it('a Blob whose size changes after the hash started is refused, not hashed', async () => {
    const p = pool();
    let reads = 0;
    const small = paint(1000);
    const changing = Object.defineProperty(new Blob([small]), 'size', { get: () => (reads++ === 0 ? 1000 : 999) });
    await assert.rejects(settlesWithin(p.hashBlob(changing), HANG_GUARD_MS, 'hash of a Blob whose size changes'), {
      name: 'NotReadableError',
      message: /had 1000 bytes when the hash started and says 999 now/,
    });
  });
});
