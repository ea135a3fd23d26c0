// Chunks whose class lies about their bytes (a species constructor, overridden methods or
// getters, own properties that shadow them) and Node Buffers: every stream and every function
// that takes bytes reads what the engine holds for them, as core's blake3() does, so what it
// releases is exactly what it hashed; and what is not a Uint8Array is refused.
import { blake3 } from '@blake3-web/core';
import {
  baoCombine,
  baoDecode,
  baoDecodeSlice,
  baoEncode,
  baoEncodeInto,
  baoOutboardSlice,
  baoSlice,
  BaoEncoder,
  BaoVerifyStream,
  Blake3Stream,
  hashStream,
  VerifyStream,
} from '@blake3-web/stream';
import { paint, readAll } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeBytes, forgedOf, HOSTILE_KINDS, hostileBytes, type HostileKind } from './fixtures/hostile-bytes.ts';

type Reader = 'default' | 'byob';
type Outcome = { bytes: Uint8Array; error?: unknown };

/** Writes `chunks` (each awaited) and closes, while reading with a default or a BYOB reader. */
async function through(
  transform: { readable: ReadableStream<Uint8Array>; writable: WritableStream<Uint8Array> },
  chunks: Uint8Array[],
  reader: Reader,
): Promise<Outcome> {
  const reading = reader === 'default' ? readAll(transform.readable) : readByob(transform.readable);
  const writer = transform.writable.getWriter();
  try {
    for (const chunk of chunks) await writer.write(chunk);
    await writer.close();
  } catch {
    // The reader sees the error.
  }
  return reading;
}

async function readByob(readable: ReadableStream<Uint8Array>): Promise<Outcome> {
  const reader = readable.getReader({ mode: 'byob' });
  const parts: number[] = [];
  let buffer = new ArrayBuffer(3000);
  try {
    for (;;) {
      const { done, value } = await reader.read(new Uint8Array(buffer));
      if (done) break;
      parts.push(...value);
      buffer = value.buffer as ArrayBuffer;
    }
  } catch (error) {
    return { bytes: Uint8Array.from(parts), error };
  }
  return { bytes: Uint8Array.from(parts) };
}

/** `data` in pieces of `size` bytes, each made hostile in the way `kind` says. */
function hostilePieces(data: Uint8Array, size: number, kind: HostileKind): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at < data.length; at += size) out.push(hostileBytes(data.subarray(at, at + size), kind));
  return out;
}

function assertGenuine(outcome: Outcome, data: Uint8Array, what: string): void {
  assert.equal(outcome.error, undefined, `${what}: the stream failed with ${String(outcome.error)}`);
  assert.equal(outcome.bytes.length, data.length, `${what}: bytes released`);
  assert.ok(
    outcome.bytes.every((b, i) => b === data[i]),
    `${what}: the bytes released are not the chunks' own bytes`,
  );
}

const content = paint(8192 + 1500);
const hash = blake3(content);
const combined = baoEncode(content).encoded;
const outboard = baoEncode(content, { outboard: true }).encoded;

describe('hostile chunks: what is released is what was hashed', () => {
  for (const kind of HOSTILE_KINDS) {
    it(`Blake3Stream and VerifyStream, ${kind}`, async () => {
      for (const size of [1000, content.length]) {
        const hashing = new Blake3Stream();
        const hashed = await through(hashing, hostilePieces(content, size, kind), 'default');
        assertGenuine(hashed, content, `Blake3Stream, writes of ${size}`);
        assert.deepEqual(await hashing.digest, hash, `Blake3Stream digest, writes of ${size}`);
        const verified = await through(new VerifyStream(hash), hostilePieces(content, size, kind), 'default');
        assertGenuine(verified, content, `VerifyStream, writes of ${size}`);
      }
    });

    for (const reader of ['default', 'byob'] as const) {
      it(`BaoVerifyStream, ${kind}, ${reader} reader`, async () => {
        const cases = [
          // Content beside an outboard, whole subtrees in one write: verified where it lies.
          {
            name: 'outboard, one write',
            make: () => new BaoVerifyStream(hash, { outboard }),
            data: content,
            size: 1 << 20,
          },
          {
            name: 'outboard, 8 KiB writes',
            make: () => new BaoVerifyStream(hash, { outboard }),
            data: content,
            size: 8192,
          },
          {
            name: 'outboard, 1000-byte writes',
            make: () => new BaoVerifyStream(hash, { outboard }),
            data: content,
            size: 1000,
          },
          {
            name: 'streamed outboard',
            make: () => new BaoVerifyStream(hash, { outboard: streamOf(hostilePieces(outboard, 100, kind)) }),
            data: content,
            size: 8192,
          },
          { name: 'combined, one write', make: () => new BaoVerifyStream(hash), data: combined, size: 1 << 20 },
          { name: 'combined, 700-byte writes', make: () => new BaoVerifyStream(hash), data: combined, size: 700 },
          {
            name: 'combined, batched',
            make: () => new BaoVerifyStream(hash, { batchLog: 3 }),
            data: combined,
            size: 3000,
          },
        ];
        for (const c of cases) {
          const out = await through(c.make(), hostilePieces(c.data, c.size, kind), reader);
          assertGenuine(out, content, c.name);
        }
      });
    }
  }

  it('an outboard given as bytes is read as the engine holds it too', async () => {
    for (const kind of HOSTILE_KINDS) {
      const out = await through(
        new BaoVerifyStream(hash, { outboard: hostileBytes(outboard, kind) }),
        [content],
        'default',
      );
      assertGenuine(out, content, kind);
    }
  });

  it('hashStream hashes what the engine holds', async () => {
    for (const kind of HOSTILE_KINDS) {
      assert.deepEqual(await hashStream(streamOf(hostilePieces(content, 1000, kind))), hash, kind);
    }
  });

  it('encode, decode, slices and combine read their inputs as the engine holds them', async () => {
    const start = 2000;
    const count = 5000;
    const slice = baoSlice(combined, start, count);
    const want = content.subarray(start, start + count);
    for (const kind of HOSTILE_KINDS) {
      const lying = (bytes: Uint8Array) => hostileBytes(bytes, kind);
      assert.deepEqual(baoEncode(lying(content)).encoded, combined, `baoEncode, ${kind}`);
      const into = new Uint8Array(combined.length);
      assert.deepEqual(baoEncodeInto(lying(content), into), hash, `baoEncodeInto, ${kind}`);
      assert.deepEqual(into, combined, `baoEncodeInto, ${kind}`);
      assert.deepEqual(baoDecode(lying(combined), hash), content, `baoDecode, ${kind}`);
      assert.deepEqual(baoDecode(lying(content), hash, { outboard: lying(outboard) }), content, `outboard, ${kind}`);
      assert.deepEqual(baoSlice(lying(combined), start, count), slice, `baoSlice, ${kind}`);
      assert.deepEqual(
        baoSlice({ data: lying(content), outboard: lying(outboard) }, start, count),
        slice,
        `baoSlice of an outboard, ${kind}`,
      );
      assert.deepEqual(baoDecodeSlice(lying(slice), hash, start, count), want, `baoDecodeSlice, ${kind}`);
      assert.deepEqual(
        baoOutboardSlice(lying(outboard), lying(content), 0, start, count),
        slice,
        `baoOutboardSlice, ${kind}`,
      );
      const encoder = new BaoEncoder();
      for (const piece of hostilePieces(content, 1000, kind)) encoder.update(piece);
      const encoded = encoder.finalize();
      assert.deepEqual([encoded.hash, encoded.outboard], [hash, outboard], `BaoEncoder, ${kind}`);
      const joined = await readAll(baoCombine(streamOf(hostilePieces(content, 1000, kind)), lying(outboard)));
      assert.deepEqual(joined, { bytes: combined }, `baoCombine, ${kind}`);
    }
  });

  it('something that only says it is a Uint8Array is refused with a TypeError, and nothing is released', async () => {
    const transforms = [
      () => new Blake3Stream(),
      () => new VerifyStream(hash),
      () => new BaoVerifyStream(hash, { outboard }),
      () => new BaoVerifyStream(hash),
    ];
    for (const make of transforms) {
      const out = await through(make(), [fakeBytes(content)], 'default');
      assert.equal((out.error as Error)?.name, 'TypeError', `${make.toString()}: ${String(out.error)}`);
      assert.match((out.error as Error).message, /stream chunks must be Uint8Arrays, got an object/);
      assert.equal(out.bytes.length, 0);
    }
    assert.throws(() => baoDecode(fakeBytes(combined), hash), {
      name: 'TypeError',
      message: /encoded must be a Uint8Array/,
    });
    assert.throws(() => new BaoVerifyStream(hash, { outboard: fakeBytes(outboard) }), {
      name: 'TypeError',
      message: /opts.outboard must be a Uint8Array or a ReadableStream/,
    });
  });

  it('a chunk whose buffer was transferred before the stream read it is refused, not taken as empty', async () => {
    for (const make of [() => new Blake3Stream(), () => new BaoVerifyStream(hash, { outboard })]) {
      const transform = make();
      const reading = readAll(transform.readable);
      const writer = transform.writable.getWriter();
      const chunk = content.slice();
      // Queued behind the first write, which waits for a read: transferred before it is taken.
      const first = writer.write(content.slice(0, 1024)).catch((e: Error) => e);
      const second = writer.write(chunk).catch((e: Error) => e);
      structuredClone(chunk.buffer, { transfer: [chunk.buffer] });
      const outcome = await Promise.race([second, new Promise((r) => setTimeout(() => r('pending'), 1000))]);
      await first;
      assert.equal((outcome as Error)?.name, 'TypeError', `${make.toString()}: ${String(outcome)}`);
      assert.match((outcome as Error).message, /detached/);
      const read = await reading;
      assert.ok(read.error !== undefined, 'the reader sees the error');
    }
  });
});

describe('Node Buffers, whose slice() is a view and not a copy', () => {
  it('Blake3Stream and VerifyStream: a writer that reuses its Buffer cannot change what the reader holds', async () => {
    for (const make of [() => new Blake3Stream(), () => new VerifyStream(hash)]) {
      const transform = make();
      const held: Uint8Array[] = [];
      const reading = (async () => {
        const reader = transform.readable.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          held.push(value);
        }
      })();
      const writer = transform.writable.getWriter();
      const buffer = Buffer.alloc(1024);
      for (let at = 0; at < content.length; at += 1024) {
        const piece = content.subarray(at, at + 1024);
        buffer.set(piece);
        await writer.write(buffer.subarray(0, piece.length));
        buffer.fill(0xee);
      }
      await writer.close();
      await reading;
      assert.deepEqual(Buffer.concat(held), Buffer.from(content), make.toString());
      if (transform instanceof Blake3Stream) assert.deepEqual(await transform.digest, hash);
    }
  });
});

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull: (c) => (i < chunks.length ? c.enqueue(chunks[i++]) : c.close()),
  });
}

// The forged bytes must differ from the genuine ones everywhere, or a lie could go unseen.
assert.ok(forgedOf(content).every((b, i) => b !== content[i]));
