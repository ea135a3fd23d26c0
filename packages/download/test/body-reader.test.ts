import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { paint } from '@blake3-web/testkit';
import { BodyReader } from '../src/_body-reader.ts';
import { StallGuard } from '../src/_stall-guard.ts';

/** `bytes` as a stream of chunks of the given sizes (cycled), a byte stream or a plain one, failing at the end if told. */
function body(bytes: Uint8Array, sizes: number[], kind: 'bytes' | 'default', fail?: Error): ReadableStream<Uint8Array> {
  let at = 0;
  let k = 0;
  return new ReadableStream({
    ...(kind === 'bytes' ? { type: 'bytes' as const } : {}),
    pull(controller) {
      if (at >= bytes.length) {
        if (fail) return controller.error(fail);
        controller.close();
        // A byte stream's pending BYOB read ends only when told so (as a fetch body's does).
        (controller as ReadableByteStreamController).byobRequest?.respond(0);
        return;
      }
      const n = Math.min(sizes[k++ % sizes.length], bytes.length - at);
      controller.enqueue(bytes.slice(at, at + n));
      at += n;
    },
  }) as ReadableStream<Uint8Array>;
}

describe('BodyReader', () => {
  for (const kind of ['bytes', 'default'] as const) {
    it(`fills batches of any size from chunks of any size (${kind} stream), and finds a body that goes on`, async () => {
      const content = paint(100_003);
      const guard = new StallGuard(10_000, undefined);
      const reader = new BodyReader(body(content, [1, 4096, 7, 65536, 333], kind), guard);
      let at = 0;
      for (const want of [16384, 1, 50_000, 33_617]) {
        const { bytes, n, error } = await reader.fill(new Uint8Array(want));
        assert.equal(error, undefined);
        assert.equal(n, want);
        assert.equal(bytes.length, want);
        assert.deepEqual(bytes, content.subarray(at, at + want));
        at += want;
      }
      assert.equal(await reader.more(), true, '1 byte left');
      const exact = new BodyReader(body(content, [4096, 7], kind), guard);
      assert.equal((await exact.fill(new Uint8Array(content.length))).n, content.length);
      assert.equal(await exact.more(), false);
      guard.done();
    });

    it(`stops short where the body ends, and reports its failure (${kind} stream)`, async () => {
      const content = paint(5000);
      const guard = new StallGuard(10_000, undefined);
      const short = new BodyReader(body(content, [999], kind), guard);
      const { bytes, n, error } = await short.fill(new Uint8Array(8192));
      assert.equal(error, undefined);
      assert.equal(n, 5000);
      assert.deepEqual(bytes.subarray(0, n), content);
      const failing = new BodyReader(body(content, [999], kind, new Error('reset')), guard);
      const out = await failing.fill(new Uint8Array(8192));
      assert.equal((out.error as Error).message, 'reset');
      // A plain reader keeps what came before the failure; a BYOB read that fails takes its buffer.
      if (kind === 'default') assert.deepEqual(out.bytes.subarray(0, out.n), content);
      else assert.equal(out.n, 0);
      await assert.rejects(failing.more(), /reset/);
      guard.done();
    });
  }

  it('gives up on a body that sends nothing, through the stall guard', async () => {
    const guard = new StallGuard(100, undefined);
    const reader = new BodyReader(
      new ReadableStream<Uint8Array>({ type: 'bytes' }) as ReadableStream<Uint8Array>,
      guard,
    );
    const started = Date.now();
    const { n, error } = await reader.fill(new Uint8Array(10));
    assert.equal(n, 0);
    assert.match(String((error as Error).message), /sent nothing for 100 ms/);
    assert.ok(Date.now() - started >= 90);
    guard.done();
  });
});
