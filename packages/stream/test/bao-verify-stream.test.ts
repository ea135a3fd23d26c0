import { blake3, bytesToHex } from '@blake3-web/core';
import { baoEncode, BaoVerifyStream, IntegrityError } from '@blake3-web/stream';
import { abortOutcome, Random, testSeed } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chunked, consume, layout, paint, type Outcome } from './fixtures/bao-helpers.ts';

const rng = new Random(testSeed());

/** Asserts the stream failed with an IntegrityError after releasing exactly data[0, released). */
function assertFailedAfter(outcome: Outcome, data: Uint8Array, released: number, what: string): void {
  assert.ok(outcome.error instanceof IntegrityError, `${what}: expected an IntegrityError, got ${outcome.error}`);
  assert.equal(outcome.error.code, 'ERR_BLAKE3_MISMATCH');
  assert.equal(outcome.released.length, released, `${what}: bytes released`);
  assert.deepEqual(outcome.released, data.subarray(0, released), `${what}: released bytes are the content`);
}

function flipBit(bytes: Uint8Array, byte: number, bit: number): Uint8Array {
  const out = bytes.slice();
  out[byte] ^= 1 << bit;
  return out;
}

describe('BaoVerifyStream: good encodings', () => {
  it('random chunkings of the combined encoding give exactly the content', async () => {
    for (let i = 0; i < 40; i++) {
      const len = rng.pick([0, 1, 1023, 1024, 1025, 2048, 2049, 4096, 4097, rng.int(0, 20_000), rng.int(0, 400_000)]);
      const data = rng.bytes(len);
      const { hash, encoded } = baoEncode(data);
      const maxChunk = rng.pick(len < 30_000 ? [1, 7, 64, 1000, 70_000] : [1000, 9000, 70_000]);
      const out = await consume(
        chunked(rng, encoded, maxChunk).pipeThrough(new BaoVerifyStream(rng.pick([hash, bytesToHex(hash)]))),
      );
      assert.equal(out.error, null, `length ${len}`);
      assert.deepEqual(out.released, data, `length ${len}`);
    }
  });

  it('outboard mode with a Uint8Array outboard and with a ReadableStream outboard', async () => {
    for (let i = 0; i < 30; i++) {
      const len = rng.pick([0, 1, 1024, 1025, 3000, rng.int(0, 300_000)]);
      const data = rng.bytes(len);
      const { hash, encoded: outboard } = baoEncode(data, { outboard: true });
      const fromBytes = await consume(
        chunked(rng, data, rng.pick([1, 500, 50_000])).pipeThrough(new BaoVerifyStream(hash, { outboard })),
      );
      assert.equal(fromBytes.error, null);
      assert.deepEqual(fromBytes.released, data);
      const fromStream = await consume(
        chunked(rng, data, 50_000).pipeThrough(
          new BaoVerifyStream(hash, { outboard: chunked(rng, outboard, rng.pick([1, 63, 4096])) }),
        ),
      );
      assert.equal(fromStream.error, null);
      assert.deepEqual(fromStream.released, data);
    }
  });

  it('batchLog verifies whole subtrees at once and gives the same content', async () => {
    for (const batchLog of [1, 2, 4, 6]) {
      for (const len of [0, 1024, 1025, 5000, 16384, 16385, rng.int(0, 300_000)]) {
        const data = rng.bytes(len);
        const { hash, encoded } = baoEncode(data);
        const out = await consume(chunked(rng, encoded, 9000).pipeThrough(new BaoVerifyStream(hash, { batchLog })));
        assert.equal(out.error, null);
        assert.deepEqual(out.released, data);
        const outboard = baoEncode(data, { outboard: true }).encoded;
        const split = await consume(
          chunked(rng, data, 9000).pipeThrough(
            new BaoVerifyStream(hash, { batchLog, outboard: chunked(rng, outboard, 100) }),
          ),
        );
        assert.equal(split.error, null);
        assert.deepEqual(split.released, data);
      }
    }
  });

  it('chunk groups: encodings with chunkGroupLog verify with the same option, and the hash is blake3()', async () => {
    for (const chunkGroupLog of [1, 4]) {
      for (const len of [0, 1, 16384, 16385, 40_000, rng.int(0, 500_000)]) {
        const data = rng.bytes(len);
        const { hash, encoded } = baoEncode(data, { chunkGroupLog });
        assert.deepEqual(hash, blake3(data));
        const out = await consume(
          chunked(rng, encoded, 7000).pipeThrough(
            new BaoVerifyStream(hash, { chunkGroupLog, batchLog: chunkGroupLog + 2 }),
          ),
        );
        assert.equal(out.error, null);
        assert.deepEqual(out.released, data);
        if (len > 1024 << chunkGroupLog) {
          // Read as the Bao 0.13 format, the same bytes are a different tree: rejected.
          const other = await consume(chunked(rng, encoded, 7000).pipeThrough(new BaoVerifyStream(hash)));
          assert.ok(other.error instanceof IntegrityError);
        }
      }
    }
  });

  it('verified bytes are copies: a writer that reuses its buffer cannot change released content', async () => {
    const data = paint(5000);
    const { hash, encoded } = baoEncode(data);
    const verifying = new BaoVerifyStream(hash);
    const reading = consume(verifying.readable);
    const writer = verifying.writable.getWriter();
    const buffer = new Uint8Array(1000);
    for (let i = 0; i < encoded.length; i += 1000) {
      const piece = encoded.subarray(i, i + 1000);
      buffer.set(piece);
      await writer.write(buffer.subarray(0, piece.length));
      buffer.fill(0xee);
    }
    await writer.close();
    const out = await reading;
    assert.equal(out.error, null);
    assert.deepEqual(out.released, data);
  });
});

describe('BaoVerifyStream: corrupt, short and long encodings', () => {
  it('a flipped bit in any parent or chunk releases exactly the content before that node', async () => {
    for (const len of [1, 1024, 1025, 2049, 10_000, 65536, 300_000]) {
      const data = paint(len);
      const { hash, encoded } = baoEncode(data);
      const regions = layout(len);
      assert.equal(regions.at(-1)!.end, encoded.length, 'the model agrees on the encoding size');
      // Every node of small trees; a sample of large ones, always including the last node.
      const picks =
        regions.length <= 40
          ? regions.slice(1)
          : [...Array.from({ length: 30 }, () => rng.pick(regions.slice(1))), regions.at(-1)!];
      for (const region of picks) {
        const byte = rng.int(region.at, region.end - 1);
        const bad = flipBit(encoded, byte, rng.int(0, 7));
        const out = await consume(
          chunked(rng, bad, rng.pick([1000, 9000, 70_000])).pipeThrough(new BaoVerifyStream(hash)),
        );
        assertFailedAfter(out, data, region.contentStart, `length ${len}, ${region.kind} at byte ${byte}`);
      }
    }
  });

  it('the error names the failing node and carries the expected and actual chaining values', async () => {
    const data = paint(5000);
    const { hash, encoded } = baoEncode(data);
    const regions = layout(5000);
    const chunk = regions.find((r) => r.kind === 'leaf' && r.contentStart === 2048)!;
    const out = await consume(
      chunked(rng, flipBit(encoded, chunk.at + 5, 0), 600).pipeThrough(new BaoVerifyStream(hash)),
    );
    assertFailedAfter(out, data, 2048, 'chunk 2');
    assert.match(out.error!.message, /chunk of content bytes 2048\.\.3072/);
    assert.match(out.error!.expected!, /^[0-9a-f]{64}$/);
    assert.match(out.error!.actual!, /^[0-9a-f]{64}$/);
    assert.notEqual(out.error!.expected, out.error!.actual);
    const wrongRoot = await consume(
      chunked(rng, encoded, 600).pipeThrough(new BaoVerifyStream(blake3(data.subarray(1)))),
    );
    assertFailedAfter(wrongRoot, data, 0, 'another hash');
    assert.equal(wrongRoot.error!.expected, bytesToHex(blake3(data.subarray(1))));
  });

  it('a flipped bit in the length header releases only a verified prefix, then fails', async () => {
    for (const len of [0, 1, 1024, 2049, 10_000, 70_000]) {
      const data = paint(len);
      const { hash, encoded } = baoEncode(data);
      for (let bit = 0; bit < 64; bit++) {
        const out = await consume(
          chunked(rng, flipBit(encoded, bit >> 3, bit & 7), 3000).pipeThrough(new BaoVerifyStream(hash)),
        );
        assert.ok(out.error instanceof IntegrityError, `length ${len}, header bit ${bit}`);
        assert.ok(
          out.released.length < Math.max(len, 1),
          `length ${len}, header bit ${bit}: released ${out.released.length}`,
        );
        assert.deepEqual(out.released, data.subarray(0, out.released.length));
      }
    }
    // Worked cases. 2049 -> 2051 keeps the tree's shape: two chunks verify, then the final chunk
    // is short. 2049 -> 2048 reads the left parent as the first chunk: nothing verifies.
    const data = paint(2049);
    const { hash, encoded } = baoEncode(data);
    assertFailedAfter(
      await consume(chunked(rng, flipBit(encoded, 0, 1), 500).pipeThrough(new BaoVerifyStream(hash))),
      data,
      2048,
      '2049 -> 2051',
    );
    assertFailedAfter(
      await consume(chunked(rng, flipBit(encoded, 0, 0), 500).pipeThrough(new BaoVerifyStream(hash))),
      data,
      0,
      '2049 -> 2048',
    );
  });

  it('the empty encoding is checked too: its empty chunk must match the hash', async () => {
    const { hash, encoded } = baoEncode(new Uint8Array(0));
    assert.deepEqual(encoded, new Uint8Array(8));
    assert.equal((await consume(chunked(rng, encoded, 3).pipeThrough(new BaoVerifyStream(hash)))).error, null);
    const other = await consume(chunked(rng, encoded, 3).pipeThrough(new BaoVerifyStream(blake3('x'))));
    assertFailedAfter(other, new Uint8Array(0), 0, 'empty under another hash');
  });

  it('a truncated encoding releases every chunk it holds whole, then fails', async () => {
    for (const len of [0, 1, 1024, 1025, 5000, 100_000]) {
      const data = paint(len);
      const { hash, encoded } = baoEncode(data);
      const regions = layout(len);
      for (let k = 0; k < 12; k++) {
        const cut = rng.pick([0, 1, 7, 8, 9, encoded.length - 1, rng.int(0, encoded.length - 1)]);
        if (cut < 0 || cut >= encoded.length) continue;
        const whole = regions.filter((r) => r.kind === 'leaf' && r.end <= cut).reduce((n, r) => n + r.contentLen, 0);
        const out = await consume(chunked(rng, encoded.subarray(0, cut), 3000).pipeThrough(new BaoVerifyStream(hash)));
        assertFailedAfter(out, data, whole, `length ${len} cut at ${cut}`);
        assert.match(out.error!.message, /ended early/);
      }
    }
  });

  it('bytes after the end of the tree fail the stream after the content', async () => {
    for (const len of [0, 1, 1024, 5000]) {
      const data = paint(len);
      const { hash, encoded } = baoEncode(data);
      for (const extra of [1, 64, 1024, 5000]) {
        const long = new Uint8Array(encoded.length + extra);
        long.set(encoded);
        const out = await consume(chunked(rng, long, 2000).pipeThrough(new BaoVerifyStream(hash)));
        assertFailedAfter(out, data, len, `length ${len} + ${extra}`);
        assert.match(out.error!.message, /after the end of its tree/);
      }
    }
  });

  it('whole subtrees checked at once (one big write, or batchLog) release exactly what node-by-node checking would', async () => {
    for (const len of [5000, 16384, 100_000]) {
      const data = paint(len);
      const { hash, encoded } = baoEncode(data);
      const regions = layout(len);
      for (let k = 0; k < 15; k++) {
        const region = rng.pick(regions.slice(1));
        const byte = rng.int(region.at, region.end - 1);
        const bad = flipBit(encoded, byte, rng.int(0, 7));
        const what = `length ${len}, ${region.kind} at ${byte}`;
        // The whole encoding in one write: the root subtree is checked at once, fails, and is
        // checked again node by node to find the failing node.
        assertFailedAfter(
          await consume(new Blob([bad as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new BaoVerifyStream(hash))),
          data,
          region.contentStart,
          `${what}, one write`,
        );
        const batchLog = rng.pick([2, 4]);
        assertFailedAfter(
          await consume(chunked(rng, bad, 3000).pipeThrough(new BaoVerifyStream(hash, { batchLog }))),
          data,
          region.contentStart,
          `${what}, batchLog ${batchLog}`,
        );
      }
    }
  });

  it('outboard mode: a corrupt parent, a corrupt content byte, and short or long inputs fail', async () => {
    const len = 50_000;
    const data = paint(len);
    const { hash, encoded: outboard } = baoEncode(data, { outboard: true });
    const regions = layout(len, { outboard: true });
    assert.equal(regions.at(-1)!.end, outboard.length);
    for (const region of regions.filter((r) => r.kind === 'parent')) {
      const bad = flipBit(outboard, rng.int(region.at, region.end - 1), rng.int(0, 7));
      const asBytes = await consume(chunked(rng, data, 9000).pipeThrough(new BaoVerifyStream(hash, { outboard: bad })));
      assertFailedAfter(asBytes, data, region.contentStart, `outboard parent for ${region.contentStart}`);
      const asStream = await consume(
        chunked(rng, data, 9000).pipeThrough(new BaoVerifyStream(hash, { outboard: chunked(rng, bad, 100) })),
      );
      assertFailedAfter(asStream, data, region.contentStart, `streamed outboard parent for ${region.contentStart}`);
    }
    for (let k = 0; k < 10; k++) {
      const byte = rng.int(0, len - 1);
      const out = await consume(
        chunked(rng, flipBit(data, byte, 3), 9000).pipeThrough(
          new BaoVerifyStream(hash, { outboard: chunked(rng, outboard, 700) }),
        ),
      );
      assertFailedAfter(out, data, byte - (byte % 1024), `content byte ${byte}`);
    }
    const shortContent = await consume(
      chunked(rng, data.subarray(0, len - 1), 9000).pipeThrough(new BaoVerifyStream(hash, { outboard })),
    );
    assertFailedAfter(shortContent, data, len - (len % 1024), 'content one byte short');
    const longContent = await consume(
      chunked(rng, new Uint8Array([...data, 0]), 9000).pipeThrough(new BaoVerifyStream(hash, { outboard })),
    );
    assertFailedAfter(longContent, data, len, 'content one byte long');
    for (const source of [outboard.subarray(0, outboard.length - 1), new Uint8Array([...outboard, 0])]) {
      const what = source.length < outboard.length ? 'outboard short' : 'outboard long';
      const released =
        source.length < outboard.length ? regions.filter((r) => r.kind === 'parent').at(-1)!.contentStart : len;
      assertFailedAfter(
        await consume(chunked(rng, data, 9000).pipeThrough(new BaoVerifyStream(hash, { outboard: source }))),
        data,
        released,
        what,
      );
      assertFailedAfter(
        await consume(
          chunked(rng, data, 9000).pipeThrough(new BaoVerifyStream(hash, { outboard: chunked(rng, source, 500) })),
        ),
        data,
        released,
        `${what}, streamed`,
      );
    }
  });
});

describe('BaoVerifyStream: as a stream', () => {
  it("is a readable/writable pair: TransformStream.prototype's getters refuse it rather than give other streams", async () => {
    const data = paint(5000);
    const { hash, encoded } = baoEncode(data);
    const verifying = new BaoVerifyStream(hash);
    for (const side of ['readable', 'writable'] as const) {
      const getter = Object.getOwnPropertyDescriptor(TransformStream.prototype, side)!.get!;
      assert.throws(() => getter.call(verifying), TypeError, `TransformStream.prototype.${side}`);
      assert.ok(!Object.prototype.hasOwnProperty.call(verifying, side), `${side} is an accessor, not an own property`);
      assert.equal(verifying[side], verifying[side], `the same ${side} on every access`);
    }
    const out = await consume(chunked(rng, encoded, 1000).pipeThrough(verifying));
    assert.deepEqual(out, { released: data, error: null });
  });

  it('pipeTo rejects with the IntegrityError and the sink sees it', async () => {
    const data = paint(10_000);
    const { hash, encoded } = baoEncode(data);
    const seen: unknown[] = [];
    let written = 0;
    const sink = new WritableStream<Uint8Array>({
      write: (c) => void (written += c.length),
      abort: (reason) => void seen.push(reason),
    });
    await assert.rejects(
      chunked(rng, flipBit(encoded, 3000, 2), 1500)
        .pipeThrough(new BaoVerifyStream(hash))
        .pipeTo(sink),
      { name: 'IntegrityError' },
    );
    assert.equal((seen[0] as Error).name, 'IntegrityError');
    // Byte 3000 of the encoding is in the third chunk: the sink got the first two.
    assert.equal(written, 2048);
  });

  it('cancelling the reader cancels the source and a streamed outboard', async () => {
    const data = paint(100_000);
    const { hash, encoded: outboard } = baoEncode(data, { outboard: true });
    const cancelled: unknown[] = [];
    let d = 0;
    let o = 0;
    const source = new ReadableStream<Uint8Array>({
      pull: (c) => c.enqueue(data.slice(d, (d += 4096))),
      cancel: (r) => void cancelled.push(['source', r]),
    });
    const outboardStream = new ReadableStream<Uint8Array>(
      { pull: (c) => c.enqueue(outboard.slice(o, (o += 64))), cancel: (r) => void cancelled.push(['outboard', r]) },
      { highWaterMark: 0 },
    );
    const reader = source.pipeThrough(new BaoVerifyStream(hash, { outboard: outboardStream })).getReader();
    assert.equal((await reader.read()).done, false);
    await reader.cancel('enough');
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(cancelled.map((c) => (c as string[])[0]).sort(), ['outboard', 'source']);
  });

  it('an aborted source errors the stream with its reason, never a success', async () => {
    const data = paint(10_000);
    const { hash, encoded } = baoEncode(data);
    const source = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(encoded.slice(0, 3000));
        c.error(new Error('network down'));
      },
    });
    const out = await consume(source.pipeThrough(new BaoVerifyStream(hash)));
    assert.equal(out.error?.message, 'network down');
    assert.deepEqual(out.released, data.subarray(0, out.released.length));
  });

  it('an abort fails a write that waits for a read, and settles, even if no read comes', async () => {
    const data = paint(10_000);
    const { hash, encoded } = baoEncode(data);
    const verifying = new BaoVerifyStream(hash);
    const writer = verifying.writable.getWriter();
    // Verifies the first chunks, then waits for the reader to take them.
    const write = writer.write(encoded.slice(0, 5000));
    await new Promise((r) => setTimeout(r, 10));
    const reason = new Error('stop');
    assert.deepEqual(await abortOutcome(writer, write, reason), ['write rejected', 'aborted']);
    await assert.rejects(verifying.readable.getReader().read(), (e) => e === reason);
  });

  it('respects backpressure: nothing is read far ahead of the consumer', async () => {
    const data = paint(1 << 20);
    const { hash, encoded } = baoEncode(data);
    let pulled = 0;
    // A source that ends, and a cancel that runs whatever the assertion says: a failing
    // assertion must not leave a pipe pulling behind the next test.
    const source = new ReadableStream<Uint8Array>(
      {
        pull: (c) => {
          if (pulled * 4096 >= encoded.length) return c.close();
          c.enqueue(encoded.slice(pulled * 4096, ++pulled * 4096));
        },
      },
      { highWaterMark: 0 },
    );
    const reader = source.pipeThrough(new BaoVerifyStream(hash)).getReader();
    try {
      await reader.read();
      await new Promise((r) => setTimeout(r, 50));
      assert.ok(pulled <= 4, `pulled ${pulled} pieces for one read`);
    } finally {
      await reader.cancel();
    }
  });

  it('validates its arguments', async () => {
    assert.throws(() => new BaoVerifyStream(new Uint8Array(31)), {
      name: 'RangeError',
      message: /hash must be 32 bytes/,
    });
    assert.throws(() => new BaoVerifyStream('zz'), { name: 'RangeError', message: /hash must be a hex digest/ });
    assert.throws(() => new BaoVerifyStream(42 as never), {
      name: 'TypeError',
      message: /hash must be a hex string or a Uint8Array/,
    });
    const hash = new Uint8Array(32);
    assert.throws(() => new BaoVerifyStream(hash, { outboard: 'x' as never }), {
      name: 'TypeError',
      message: /opts.outboard must be a Uint8Array or a ReadableStream, got a string/,
    });
    assert.throws(() => new BaoVerifyStream(hash, { chunkGroupLog: 1.5 }), {
      name: 'RangeError',
      message: /opts.chunkGroupLog must be an integer from 0 to 16, got 1.5/,
    });
    assert.throws(() => new BaoVerifyStream(hash, { batchLog: -1 }), { name: 'RangeError', message: /opts.batchLog/ });
    const verifying = new BaoVerifyStream(hash);
    void verifying.readable
      .getReader()
      .read()
      .catch(() => {});
    await assert.rejects(verifying.writable.getWriter().write('text' as never), {
      name: 'TypeError',
      message: /chunks must be Uint8Arrays, got a string/,
    });
  });

  it('a length header beyond 2^53 - 1 is rejected as corrupt', async () => {
    const encoded = new Uint8Array(8 + 64).fill(0xff);
    const out = await consume(chunked(rng, encoded, 10).pipeThrough(new BaoVerifyStream(new Uint8Array(32))));
    assert.ok(out.error instanceof IntegrityError);
    assert.match(out.error.message, /more than 2\^53 - 1/);
  });
});
