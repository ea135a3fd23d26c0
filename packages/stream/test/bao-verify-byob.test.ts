// BaoVerifyStream read with a BYOB reader (the reader brings the memory): the content equals a
// default reader's and the reference encodings', whatever the write boundaries and the reader's
// buffer sizes; a corrupt node releases exactly the content before it and never reaches the
// reader's buffer; released chunks of a default reader hold nothing beyond themselves.
import { blake3, bytesToHex } from '@blake3-web/core';
import { baoEncode, BaoVerifyStream } from '@blake3-web/stream';
import { chunkedStream, Random, testSeed } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { consume, layout, paint, reference, storedBytes } from './fixtures/bao-helpers.ts';

const seed = testSeed();
const rng = new Random(seed);
/** What the reader leaves in its buffer's unused bytes: a stream that writes there is caught. */
const MARK = 0xa5;

interface ByobOutcome {
  released: Uint8Array;
  error: (Error & { code?: string }) | null;
  /** A read that came back with bytes past its view changed, or an unverified byte in it. */
  trespass: string | null;
}

/**
 * Reads to the end or the error with a BYOB reader that reuses one buffer, asking for views of
 * random sizes (`sizes`) at random offsets in it, marking the buffer before every read.
 */
async function readByob(
  readable: ReadableStream<Uint8Array>,
  sizes: number[],
  content: Uint8Array,
): Promise<ByobOutcome> {
  const reader = readable.getReader({ mode: 'byob' });
  let buffer = new ArrayBuffer(Math.max(...sizes) + 64);
  const parts: Uint8Array[] = [];
  let total = 0;
  let trespass: string | null = null;
  try {
    for (;;) {
      const size = rng.pick(sizes);
      const offset = rng.int(0, buffer.byteLength - size);
      new Uint8Array(buffer, offset, Math.min(size + 64, buffer.byteLength - offset)).fill(MARK);
      const { done, value } = await reader.read(new Uint8Array(buffer, offset, size));
      if (!value) throw new Error('a BYOB read came back without its buffer');
      buffer = value.buffer as ArrayBuffer;
      // The bytes past what came back, up to the end of the view asked for and a little more.
      const past = new Uint8Array(
        buffer,
        offset + value.length,
        Math.min(size + 64, buffer.byteLength - offset) - value.length,
      );
      if (past.some((b) => b !== MARK)) trespass ??= `bytes past the ${value.length} returned were written`;
      if (done) break;
      const want = content.subarray(total, total + value.length);
      if (value.length === 0 || value.length > size || !want.every((b, i) => b === value[i]))
        trespass ??= `read of ${value.length} bytes at ${total} is not the content there`;
      parts.push(value.slice());
      total += value.length;
    }
    return { released: join(parts), error: null, trespass };
  } catch (error) {
    return { released: join(parts), error: error as ByobOutcome['error'], trespass };
  }
}

function join(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) (out.set(p, at), (at += p.length));
  return out;
}

function flipBit(bytes: Uint8Array, byte: number, bit: number): Uint8Array {
  const out = bytes.slice();
  out[byte] ^= 1 << bit;
  return out;
}

/** Reader buffer sizes: smaller than a chunk, odd, a chunk, larger than the content. */
const bufferSizes = (len: number): number[] =>
  [1, 7, 1000, 1024, 1025, 4099, 65536, len + 3000].filter((n) => n * 300 >= len);

describe('BaoVerifyStream with a BYOB reader', () => {
  it('releases exactly the content of the reference encodings', async () => {
    for (const ref of reference.cases) {
      const encoded = storedBytes(ref.encoded) ?? baoEncode(paint(ref.len)).encoded;
      const data = paint(ref.len);
      for (const sizes of [bufferSizes(ref.len).slice(0, 3), [ref.len + 100]]) {
        const out = await readByob(
          chunkedStream(rng, encoded, rng.pick([100, 5000, 70_000])).pipeThrough(new BaoVerifyStream(ref.hash)),
          sizes,
          data,
        );
        assert.equal(out.error, null, `${ref.len} bytes (seed ${seed})`);
        assert.equal(out.trespass, null);
        assert.equal(bytesToHex(blake3(out.released)), ref.hash, `${ref.len} bytes released whole`);
      }
    }
  });

  it('random lengths, writes, chunk groups, outboards and buffer sizes give what a default reader gets', async () => {
    for (let round = 0; round < 24; round++) {
      const len = rng.pick([0, 1, 1023, 1024, 1025, rng.int(0, 5000), rng.int(0, 300_000), rng.int(400_000, 1 << 20)]);
      const data = rng.bytes(len);
      const chunkGroupLog = rng.pick([0, 0, 2, 4]);
      const outboarded = rng.int(0, 1) === 1;
      const { hash, encoded } = baoEncode(data, { chunkGroupLog, outboard: outboarded });
      // Writes of one byte for small contents only: about a thousand writes per case at most.
      const maxWrite = Math.max(rng.pick([1, 1000, 65536, 1 << 20]), len >> 9);
      const opts = { chunkGroupLog, batchLog: rng.pick([0, 0, 3]), ...(outboarded ? { outboard: encoded } : {}) };
      const written = outboarded ? data : encoded;
      const what = `${len} bytes, chunkGroupLog ${chunkGroupLog}, ${outboarded ? 'outboard' : 'combined'}, writes up to ${maxWrite} (seed ${seed})`;
      const byob = await readByob(
        chunkedStream(rng, written, maxWrite).pipeThrough(new BaoVerifyStream(hash, opts)),
        [rng.pick(bufferSizes(len)), rng.pick(bufferSizes(len))],
        data,
      );
      const plain = await consume(chunkedStream(rng, written, maxWrite).pipeThrough(new BaoVerifyStream(hash, opts)));
      assert.equal(byob.error, null, what);
      assert.equal(byob.trespass, null, what);
      assert.equal(plain.error, null, what);
      assert.deepEqual(byob.released, data, what);
      assert.deepEqual(plain.released, data, what);
    }
  });

  it('a corrupt node releases exactly the content before it, and nothing unverified reaches the buffer', async () => {
    for (let round = 0; round < 40; round++) {
      const len = rng.pick([1025, 2049, rng.int(2000, 100_000), rng.int(100_000, 600_000)]);
      const data = rng.bytes(len);
      const outboarded = rng.int(0, 1) === 1;
      const { hash, encoded } = baoEncode(data, { outboard: outboarded });
      // A node of the encoding (parents and leaves; with an outboard, a parent or a content byte).
      const regions = layout(len, { outboard: outboarded }).filter((r) => r.end > r.at && r.kind !== 'header');
      let written = outboarded ? data : encoded;
      let outboard = encoded;
      let firstBad: number;
      if (outboarded && rng.int(0, 1) === 0) {
        const byte = rng.int(0, len - 1);
        written = flipBit(data, byte, rng.int(0, 7));
        firstBad = byte - (byte % 1024);
      } else {
        const region = rng.pick(regions);
        const bad = flipBit(encoded, rng.int(region.at, region.end - 1), rng.int(0, 7));
        if (outboarded) outboard = bad;
        else written = bad;
        firstBad = region.contentStart;
      }
      const opts = outboarded ? { outboard } : {};
      const out = await readByob(
        chunkedStream(rng, written, rng.pick([700, 65536, 1 << 20])).pipeThrough(new BaoVerifyStream(hash, opts)),
        [rng.pick(bufferSizes(len)), rng.pick(bufferSizes(len))],
        data,
      );
      const what = `${len} bytes, corrupt at content ${firstBad} (seed ${seed})`;
      assert.equal(out.error?.name, 'IntegrityError', what);
      assert.equal(out.trespass, null, what);
      assert.equal(out.released.length, firstBad, what);
      assert.deepEqual(out.released, data.subarray(0, firstBad), what);
    }
  });

  it('content beside an outboard, in writes that hold whole subtrees: verified where it lies, exactly the prefix before a corrupt node', async () => {
    for (let round = 0; round < 40; round++) {
      const len = rng.pick([2049, rng.int(5000, 300_000), rng.int(300_000, 1 << 20)]);
      const data = rng.bytes(len);
      const chunkGroupLog = rng.pick([0, 0, 2, 4]);
      const { hash, encoded } = baoEncode(data, { chunkGroupLog, outboard: true });
      // Writes of a power of two chunks, aligned with subtrees, now and then one of another size.
      const sizes = [1024 << rng.int(0, 10), rng.int(1, 70_000)];
      const writes: Uint8Array[] = [];
      for (let at = 0; at < len;) {
        const n = rng.int(0, 4) === 0 ? sizes[1] : sizes[0];
        writes.push(data.slice(at, (at += n)));
      }
      let written = writes;
      let outboard = encoded;
      let firstBad = len;
      const corrupt = rng.int(0, 2);
      if (corrupt === 1) {
        const byte = rng.int(0, len - 1);
        const leafBytes = 1024 << chunkGroupLog;
        firstBad = byte - (byte % leafBytes);
        let at = 0;
        written = writes.map((w) => {
          const copy = byte >= at && byte < at + w.length ? flipBit(w, byte - at, rng.int(0, 7)) : w;
          at += w.length;
          return copy;
        });
      } else if (corrupt === 2) {
        const region = rng.pick(
          layout(len, { leafBytes: 1024 << chunkGroupLog, outboard: true }).filter((r) => r.kind === 'parent'),
        );
        if (region) {
          outboard = flipBit(encoded, rng.int(region.at, region.end - 1), rng.int(0, 7));
          firstBad = region.contentStart;
        }
      }
      const source = new ReadableStream<Uint8Array>({
        pull: (c) => (written.length > 0 ? c.enqueue(written.shift()!) : c.close()),
      });
      const out = await readByob(
        source.pipeThrough(new BaoVerifyStream(hash, { chunkGroupLog, outboard })),
        [rng.pick(bufferSizes(len)), rng.pick([sizes[0], sizes[0] >> 1, len + 100])],
        data,
      );
      const what = `${len} bytes, chunkGroupLog ${chunkGroupLog}, writes of ${sizes.join(' and ')}, first bad content byte ${firstBad} (seed ${seed})`;
      assert.equal(out.error?.name ?? null, firstBad < len ? 'IntegrityError' : null, what);
      assert.equal(out.trespass, null, what);
      assert.equal(out.released.length, firstBad, what);
      assert.deepEqual(out.released, data.subarray(0, firstBad), what);
    }
  });

  it('a writer that changes its chunk once the write resolves changes nothing released, however late the reader reads', async () => {
    const data = rng.bytes(300_000);
    const { hash, encoded } = baoEncode(data, { outboard: true });
    for (const mode of ['byob', 'default'] as const) {
      for (const slow of [false, true]) {
        const verifying = new BaoVerifyStream(hash, { outboard: encoded });
        const writer = verifying.writable.getWriter();
        const reader = verifying.readable.getReader(mode === 'byob' ? { mode } : undefined);
        const parts: Uint8Array[] = [];
        const reading = (async (): Promise<void> => {
          for (;;) {
            // A slow reader: no read is pending when a write arrives.
            if (slow) await new Promise((r) => setTimeout(r, 1));
            const { done, value } = await (mode === 'byob'
              ? (reader as ReadableStreamBYOBReader).read(new Uint8Array(70_000))
              : (reader as ReadableStreamDefaultReader<Uint8Array>).read());
            if (done) break;
            parts.push(value!.slice());
          }
        })();
        // One buffer for every write (whole subtrees of 64 KiB), scribbled over as each write resolves.
        const buffer = new Uint8Array(65536);
        for (let at = 0; at < data.length; at += buffer.length) {
          const piece = buffer.subarray(0, Math.min(buffer.length, data.length - at));
          piece.set(data.subarray(at, at + piece.length));
          await writer.write(piece);
          buffer.fill(0x5a);
        }
        await Promise.all([reading, writer.close()]);
        assert.deepEqual(join(parts), data, `${mode} reader${slow ? ', reading late' : ''}`);
      }
    }
  });

  it('a truncated encoding, a flipped length header and bytes after the tree fail as for a default reader', async () => {
    for (const len of [0, 1, 1025, 5000, 100_000]) {
      const data = paint(len);
      const { hash, encoded } = baoEncode(data);
      const long = new Uint8Array(encoded.length + rng.pick([1, 64, 5000]));
      long.set(encoded);
      const cases: [string, Uint8Array, RegExp][] = [
        ['truncated', encoded.subarray(0, rng.int(0, encoded.length - 1)), /ended early/],
        ['length header', flipBit(encoded, rng.int(0, 7), rng.int(0, 7)), /./],
        ['after the tree', long, /after the end of its tree/],
      ];
      for (const [kind, written, message] of cases) {
        const write = rng.pick([500, 3000, 65536]);
        const what = `${len} bytes, ${kind}, writes of ${write} (seed ${seed})`;
        const byob = await readByob(
          chunkedStream(rng, written, write).pipeThrough(new BaoVerifyStream(hash)),
          [rng.pick(bufferSizes(len)), rng.pick(bufferSizes(len))],
          data,
        );
        const plain = await consume(chunkedStream(rng, written, write).pipeThrough(new BaoVerifyStream(hash)));
        assert.equal(byob.error?.name, 'IntegrityError', what);
        assert.match(byob.error!.message, message, what);
        assert.equal(plain.error?.name, 'IntegrityError', what);
        assert.equal(byob.trespass, null, what);
        assert.deepEqual(byob.released, plain.released, what);
        assert.ok(byob.released.length < Math.max(len, 1) || kind === 'after the tree', what);
      }
    }
  });

  it('a default reader gets arrays alone in their buffer: no unverified byte behind a released view', async () => {
    // 64 KiB in one write: one subtree checked at once, which fails and is checked again node by
    // node, releasing the chunks before the corrupt one from the subtree's array.
    const data = paint(65536);
    const { hash, encoded } = baoEncode(data);
    const region = layout(65536).filter((r) => r.kind === 'leaf')[40];
    const bad = flipBit(encoded, region.at + 3, 1);
    const reader = new ReadableStream<Uint8Array>({ start: (c) => (c.enqueue(bad), c.close()) })
      .pipeThrough(new BaoVerifyStream(hash))
      .getReader();
    let released = 0;
    await assert.rejects(async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        assert.equal(value.byteOffset, 0, 'a released view starts its buffer');
        assert.equal(value.buffer.byteLength, value.length, 'a released view ends its buffer');
        released += value.length;
      }
    }, /Bao mismatch/);
    assert.equal(released, region.contentStart);
  });

  it('cancel and abort settle every promise and hand back no unverified byte', async () => {
    const data = paint(300_000);
    const { hash, encoded } = baoEncode(data);
    // The reader cancels while a read waits: the read ends, its buffer back with no content.
    {
      const source = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}) });
      const reader = source.pipeThrough(new BaoVerifyStream(hash)).getReader({ mode: 'byob' });
      const read = reader.read(new Uint8Array(4096).fill(MARK));
      await reader.cancel('enough');
      const { done, value } = await read;
      assert.equal(done, true);
      assert.equal(value?.length ?? 0, 0);
    }
    // A corrupt write: the read rejects, the buffer held only what came before.
    {
      const bad = flipBit(encoded, 5000, 3);
      const writes = [bad.slice(0, 4000), bad.slice(4000)];
      const source = new ReadableStream<Uint8Array>({
        pull: (c) => (writes.length > 0 ? c.enqueue(writes.shift()!) : c.close()),
      });
      const out = await readByob(source.pipeThrough(new BaoVerifyStream(hash)), [3000, 50_000], data);
      assert.equal(out.error?.name, 'IntegrityError');
      assert.equal(out.trespass, null);
      assert.deepEqual(out.released, data.subarray(0, out.released.length));
      assert.ok(out.released.length < 5000);
    }
    // The writer aborts while its write waits for a BYOB read that never comes.
    {
      const verifying = new BaoVerifyStream(hash);
      const writer = verifying.writable.getWriter();
      const write = writer.write(encoded.slice(0, 100_000));
      await new Promise((r) => setTimeout(r, 10));
      const reason = new Error('stop');
      await Promise.all([assert.rejects(write), writer.abort(reason)]);
      const reader = verifying.readable.getReader({ mode: 'byob' });
      await assert.rejects(reader.read(new Uint8Array(10)), (e) => e === reason);
    }
  });
});
