// The handle every caller of a worker uses (the pool, the upload's hashing worker), on real
// worker_threads: errors thrown in the worker arrive as the class they were thrown as, with their
// fields; a worker that never answers, or is terminated, settles every call.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Worker } from 'node:worker_threads';
import { WorkerDiedError, type KnownErrors } from '../src/_errors.ts';
import { WorkerHandle } from '../src/_worker-handle.ts';
import { nodePlatform } from '../src/platform-node.ts';
import { loadedWorker, scriptWorker, settlesWithin } from './_helpers.ts';
import { ShelfError, type ThrownKind } from './_thrown-errors.ts';

type ThrowingApi = { throwIt(kind: ThrownKind): never; ping(): 'pong' };
const HANG_GUARD_MS = 30_000;

function handleOn(worker: Worker, knownErrors?: KnownErrors, livenessMs = 10_000) {
  const handle = new WorkerHandle<ThrowingApi, Worker>(worker, {
    adapt: nodePlatform.adaptWorker,
    livenessMs,
    knownErrors,
  });
  after(() => handle.terminate());
  return handle;
}

/** What the worker's call threw, as the caller receives it. */
async function thrown(handle: WorkerHandle<ThrowingApi, Worker>, kind: ThrownKind): Promise<Error> {
  const outcome = await settlesWithin(
    handle
      .call((w) => w.throwIt(kind))
      .then(
        () => assert.fail(`${kind}: the call resolved`),
        (e: unknown) => e,
      ),
    HANG_GUARD_MS,
    kind,
  );
  assert.ok(outcome instanceof Error, `${kind}: ${String(outcome)} is an Error`);
  return outcome;
}

describe('WorkerHandle: errors thrown in a worker keep their class and fields', () => {
  it('TypeError, RangeError and Error arrive as those classes, with message, stack and own fields', async () => {
    const handle = handleOn(await loadedWorker('./_throwing-worker.mjs', {}));
    const type = await thrown(handle, 'TypeError');
    assert.ok(type instanceof TypeError);
    assert.equal(type.name, 'TypeError');
    assert.equal(type.message, 'opts.key must be a Uint8Array, got a string');
    assert.match(type.stack ?? '', /_thrown-errors\.ts/, 'the stack is the worker’s');
    const range = await thrown(handle, 'RangeError');
    assert.ok(range instanceof RangeError);
    assert.ok(!(range instanceof TypeError));
    assert.equal(range.message, 'offset must be at most 1000, got 2000');
    const plain = (await thrown(handle, 'Error')) as Error & { code?: string };
    assert.equal(plain.constructor, Error);
    assert.equal(plain.code, 'E_SHELF');
  });

  it('DOMExceptions (AbortError, NotReadableError) arrive as DOMExceptions with their name', async () => {
    const handle = handleOn(await loadedWorker('./_throwing-worker.mjs', {}));
    for (const kind of ['AbortError', 'NotReadableError'] as const) {
      const e = await thrown(handle, kind);
      assert.ok(e instanceof DOMException, kind);
      assert.equal(e.name, kind);
      assert.equal(e.message, `it was a ${kind}`);
    }
  });

  it("another package's class, named in knownErrors, arrives as that class with its fields", async () => {
    const handle = handleOn(await loadedWorker('./_throwing-worker.mjs', {}), { ShelfError });
    const e = await thrown(handle, 'ShelfError');
    assert.ok(e instanceof ShelfError, 'an instance of the class the caller named');
    assert.equal(e.name, 'ShelfError');
    assert.equal(e.message, 'shelf 7 belongs to another upload');
    const shelf = e as ShelfError;
    assert.equal(shelf.reason, 'foreign');
    assert.equal(shelf.shelf, 7);
    assert.match(e.stack ?? '', /_thrown-errors\.ts/);
    // Classes the caller did not name, and the native ones, are unchanged by the names it gave.
    assert.ok((await thrown(handle, 'RangeError')) instanceof RangeError);
  });

  it('a class the caller did not name arrives as an Error with its name and fields', async () => {
    const handle = handleOn(await loadedWorker('./_throwing-worker.mjs', {}));
    const e = (await thrown(handle, 'ShelfError')) as Error & Partial<ShelfError>;
    assert.ok(!(e instanceof ShelfError));
    assert.equal(e.name, 'ShelfError');
    assert.equal(e.reason, 'foreign');
    assert.equal(e.shelf, 7);
  });
});

describe('WorkerHandle: every call settles', () => {
  it('a worker that never answers fails its calls, and later ones, once the start deadline passes', async () => {
    const worker = scriptWorker('./_silent-worker.mjs');
    const handle = new WorkerHandle<ThrowingApi, Worker>(worker, {
      adapt: nodePlatform.adaptWorker,
      livenessMs: 60_000,
      name: 'the shelf worker',
      start: { ms: 200, hint: 'is its script served?' },
    });
    after(() => handle.terminate());
    const call = handle.call((w) => w.throwIt('TypeError'));
    await assert.rejects(settlesWithin(call, HANG_GUARD_MS, 'the call'), (e: unknown) => {
      assert.ok(e instanceof WorkerDiedError);
      assert.match(
        e.message,
        /^the shelf worker did not answer within 200 ms: its script did not start \(is its script served\?\)$/,
      );
      return true;
    });
    await assert.rejects(
      handle.call((w) => w.ping()),
      WorkerDiedError,
      'a later call fails at once',
    );
    assert.ok(handle.stopped instanceof WorkerDiedError);
  });

  it('terminate rejects pending and later calls with its reason, and tells no death', async () => {
    let deaths = 0;
    const handle = new WorkerHandle<ThrowingApi, Worker>(scriptWorker('./_silent-worker.mjs'), {
      adapt: nodePlatform.adaptWorker,
      livenessMs: 60_000,
      onDeath: () => deaths++,
    });
    const pending = handle.call((w) => w.ping());
    const reason = new DOMException('stopped by the test', 'AbortError');
    handle.terminate(reason);
    await assert.rejects(pending, (e: unknown) => e === reason);
    await assert.rejects(
      handle.call((w) => w.ping()),
      (e: unknown) => e === reason,
    );
    assert.equal(deaths, 0);
  });
});
