// Bao verified streaming of @blake3-web/stream in every engine: encodings made in the page match
// the reference `bao` 0.13 output recorded in packages/stream/test/fixtures; BaoVerifyStream,
// slices and fetchVerified work with plain reader loops (WebKit has no async iteration of
// ReadableStream and no ReadableStream.from) and release exactly the verified bytes.
import { leftSubtreeLen } from '@blake3-web/core/hazmat';
import { readFileSync } from 'node:fs';
import type { EnginePage } from '../../servers/engine-page.ts';
import { expect, test } from '../../servers/engine-test.ts';

type Stored = { hex: string } | { length: number; sha256: string };
type ReferenceCase = {
  len: number;
  hash: string;
  encoded: Stored;
  outboard: Stored;
  slices: { start: number; count: number; slice: Stored }[];
};
const reference: { reference: string; cases: ReferenceCase[] } = JSON.parse(
  readFileSync(new URL('../../packages/stream/test/fixtures/bao-reference.json', import.meta.url), 'utf8'),
);

/** Where each node of the combined encoding of `len` bytes is, and the content it leads to. */
function layout(len: number): { kind: 'parent' | 'chunk'; at: number; end: number; contentStart: number }[] {
  const nodes: { kind: 'parent' | 'chunk'; at: number; end: number; contentStart: number }[] = [];
  let pos = 8;
  const walk = (start: number, n: number): void => {
    if (n <= 1024) {
      nodes.push({ kind: 'chunk', at: pos, end: (pos += n), contentStart: start });
      return;
    }
    nodes.push({ kind: 'parent', at: pos, end: (pos += 64), contentStart: start });
    const left = leftSubtreeLen(n);
    walk(start, left);
    walk(start + left, n - left);
  };
  walk(0, len);
  return nodes;
}

async function openStreamPage(page: EnginePage): Promise<void> {
  await page.goto('/servers/pages/stream.html');
  await page.waitForFunction(() => globalThis.blake3WebStream !== undefined || globalThis.blake3WebError !== undefined);
  const error = await page.evaluate(() => globalThis.blake3WebError ?? null);
  if (error !== null) throw new Error(`@blake3-web/stream failed to load in ${page.engine}: ${error}`);
}

test.describe('Bao', () => {
  test.beforeEach(async ({ enginePage }) => openStreamPage(enginePage));

  test('encodings and slices made in the page are the reference bao 0.13 bytes', async ({ enginePage }) => {
    const cases = reference.cases.filter(
      (c) => [0, 1, 1023, 1024, 1025, 2049, 65536, 1000007].includes(c.len) || c === reference.cases.at(-1),
    );
    const results = await enginePage.evaluate(async (cases) => {
      const { core, stream } = globalThis.blake3WebStream!;
      const paint = (len: number) => {
        const out = new Uint8Array(len);
        for (let i = 0; i < len; i++) out[i] = i % 251;
        return out;
      };
      // SHA-256 of large outputs, as the fixtures store them: independent of the code under test.
      const describe = async (bytes: Uint8Array, like: { hex: string } | { length: number; sha256: string }) => {
        if ('hex' in like) return { hex: core.bytesToHex(bytes) };
        const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
        return { length: bytes.length, sha256: core.bytesToHex(digest) };
      };
      const out = [];
      for (const ref of cases) {
        const data = paint(ref.len);
        const { hash, encoded } = stream.baoEncode(data);
        const outboard = stream.baoEncode(data, { outboard: true }).encoded;
        const slices = [];
        for (const s of ref.slices) {
          const slice = stream.baoSlice(encoded, s.start, s.count);
          const decoded = stream.baoDecodeSlice(slice, hash, s.start, s.count);
          const want = data.subarray(Math.min(s.start, ref.len), Math.min(ref.len, s.start + s.count));
          slices.push({
            start: s.start,
            count: s.count,
            slice: await describe(slice, s.slice),
            decodes: core.bytesToHex(decoded) === core.bytesToHex(want),
          });
        }
        out.push({
          len: ref.len,
          hash: core.bytesToHex(hash),
          encoded: await describe(encoded, ref.encoded),
          outboard: await describe(outboard, ref.outboard),
          slices,
        });
      }
      return out;
    }, cases);
    expect(results).toHaveLength(cases.length);
    for (const [i, ref] of cases.entries()) {
      expect(results[i]).toEqual({ ...ref, slices: ref.slices.map((s) => ({ ...s, decodes: true })) });
    }
  });

  test('BaoVerifyStream: random chunkings and outboards give the content; a tampered byte releases exactly the verified chunks', async ({
    enginePage,
  }) => {
    const len = 100_000;
    const nodes = layout(len);
    // One chunk and one parent deep in the tree, and the last chunk.
    const chunk = nodes.filter((n) => n.kind === 'chunk')[37];
    const parent = nodes.filter((n) => n.kind === 'parent')[20];
    const last = nodes.at(-1)!;
    const tampers = [chunk, parent, last].map((n) => ({
      kind: n.kind,
      byte: n.at + Math.floor((n.end - n.at) / 2),
      released: n.contentStart,
    }));
    const r = await enginePage.evaluate(
      async ({ len, tampers }) => {
        const { core, stream } = globalThis.blake3WebStream!;
        let seed = 0x5eed;
        const rand = (n: number) => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) % n;
        const data = new Uint8Array(len);
        for (let i = 0; i < len; i++) data[i] = (i * 7 + 3) % 256;
        const { hash, encoded } = stream.baoEncode(data);
        const outboard = stream.baoEncode(data, { outboard: true }).encoded;
        /** Random pieces, some empty, at odd offsets of larger buffers. */
        const pieces = (bytes: Uint8Array, max: number) => {
          const list: Uint8Array[] = [];
          for (let i = 0; i < bytes.length;) {
            const n = rand(max + 1);
            const pad = rand(4);
            const buf = new Uint8Array(n + pad);
            const piece = bytes.subarray(i, i + n);
            buf.set(piece, pad);
            list.push(buf.subarray(pad, pad + piece.length));
            i += n;
          }
          let k = 0;
          return new ReadableStream<Uint8Array>({ pull: (c) => (k < list.length ? c.enqueue(list[k++]) : c.close()) });
        };
        /** A plain reader loop: what was released, and the error if any. */
        const read = async (readable: ReadableStream<Uint8Array>) => {
          const reader = readable.getReader();
          const got: number[] = [];
          try {
            for (;;) {
              const { done, value } = await reader.read();
              if (done) break;
              for (let i = 0; i < value.length; i++) got.push(value[i]);
            }
          } catch (e) {
            const err = e as Error & { code?: string };
            return {
              released: got.length,
              prefix: got.every((b, i) => b === data[i]),
              error: `${err.name} ${err.code ?? ''}`.trim(),
            };
          }
          return { released: got.length, prefix: got.every((b, i) => b === data[i]), error: null };
        };
        const good = [];
        for (const max of [7, 700, 5000, 70_000]) {
          good.push(await read(pieces(encoded, max).pipeThrough(new stream.BaoVerifyStream(core.bytesToHex(hash)))));
        }
        good.push(await read(pieces(data, 9000).pipeThrough(new stream.BaoVerifyStream(hash, { outboard }))));
        good.push(
          await read(
            pieces(data, 9000).pipeThrough(new stream.BaoVerifyStream(hash, { outboard: pieces(outboard, 100) })),
          ),
        );
        good.push(
          await read(
            new Blob([encoded as Uint8Array<ArrayBuffer>])
              .stream()
              .pipeThrough(new stream.BaoVerifyStream(hash, { batchLog: 4 })),
          ),
        );
        const tampered = [];
        for (const t of tampers) {
          const bad = encoded.slice();
          bad[t.byte] ^= 0x10;
          tampered.push({ ...t, got: await read(pieces(bad, 5000).pipeThrough(new stream.BaoVerifyStream(hash))) });
        }
        const truncated = await read(
          pieces(encoded.subarray(0, encoded.length - 1), 5000).pipeThrough(new stream.BaoVerifyStream(hash)),
        );
        const long = new Uint8Array(encoded.length + 1);
        long.set(encoded);
        const overLong = await read(pieces(long, 5000).pipeThrough(new stream.BaoVerifyStream(hash)));
        return { good, tampered, truncated, overLong, lastChunkStart: len - (len % 1024) };
      },
      { len, tampers },
    );
    expect(r.good).toHaveLength(7);
    for (const g of r.good) expect(g).toEqual({ released: len, prefix: true, error: null });
    for (const t of r.tampered)
      expect(t.got, `${t.kind} at encoded byte ${t.byte}`).toEqual({
        released: t.released,
        prefix: true,
        error: 'IntegrityError ERR_BLAKE3_MISMATCH',
      });
    expect(r.truncated).toEqual({
      released: r.lastChunkStart,
      prefix: true,
      error: 'IntegrityError ERR_BLAKE3_MISMATCH',
    });
    expect(r.overLong).toEqual({ released: len, prefix: true, error: 'IntegrityError ERR_BLAKE3_MISMATCH' });
  });

  test('BaoVerifyStream: a BYOB reader gets verified content in its own buffer, where the engine has BYOB readers, also content beside an outboard; released arrays hold nothing more', async ({
    enginePage,
  }) => {
    const len = 300_000;
    const tamper = layout(len).filter((n) => n.kind === 'chunk')[150];
    const contentByte = 150 * 1024 + 100;
    const r = await enginePage.evaluate(
      async ({ len, byte, contentByte }) => {
        const { stream } = globalThis.blake3WebStream!;
        const data = new Uint8Array(len);
        for (let i = 0; i < len; i++) data[i] = (i * 13 + 5) % 256;
        const { hash, encoded } = stream.baoEncode(data);
        const bad = encoded.slice();
        bad[byte] ^= 0x04;
        const pieces = (bytes: Uint8Array, size: number) => {
          let at = 0;
          return new ReadableStream<Uint8Array>({
            pull: (c) => (at < bytes.length ? c.enqueue(bytes.slice(at, (at += size))) : c.close()),
          });
        };
        const mark = 0xee;
        /** BYOB reads into one buffer of `size` bytes: bytes released, whether each read was the content there. */
        const readByob = async (readable: ReadableStream<Uint8Array>, size: number) => {
          const reader = readable.getReader({ mode: 'byob' });
          let buffer = new ArrayBuffer(size + 16);
          let at = 0;
          let exact = true;
          try {
            for (;;) {
              new Uint8Array(buffer).fill(mark);
              const { done, value } = await reader.read(new Uint8Array(buffer, 8, size));
              if (done) break;
              for (let i = 0; i < value.length; i++) exact &&= value[i] === data[at + i];
              const whole = new Uint8Array(value.buffer);
              for (let i = 0; i < whole.length; i++) if (i < 8 || i >= 8 + value.length) exact &&= whole[i] === mark;
              at += value.length;
              buffer = value.buffer as ArrayBuffer;
            }
          } catch (e) {
            return { released: at, exact, error: (e as Error).name };
          }
          return { released: at, exact, error: null };
        };
        /** A default reader: bytes released, whether every array is the content there and alone in its buffer. */
        const readPlain = async (readable: ReadableStream<Uint8Array>) => {
          const reader = readable.getReader();
          let at = 0;
          let exact = true;
          try {
            for (;;) {
              const { done, value } = await reader.read();
              if (done) break;
              exact &&= value.byteOffset === 0 && value.buffer.byteLength === value.length;
              for (let i = 0; i < value.length; i++) exact &&= value[i] === data[at + i];
              at += value.length;
            }
          } catch (e) {
            return { released: at, exact, error: (e as Error).name };
          }
          return { released: at, exact, error: null };
        };
        let byob = true;
        try {
          new stream.BaoVerifyStream(hash).readable.getReader({ mode: 'byob' }).releaseLock();
        } catch {
          byob = false;
        }
        const plain = [
          await readPlain(pieces(encoded, 65536).pipeThrough(new stream.BaoVerifyStream(hash))),
          await readPlain(pieces(bad, 1 << 20).pipeThrough(new stream.BaoVerifyStream(hash))),
        ];
        if (!byob) return { byob, plain, viaByob: [], viaOutboard: [] };
        const viaByob = [];
        for (const [size, write] of [
          [1000, 65536],
          [65536, 65536],
          [4099, 1 << 20],
          [len + 100, 7000],
        ])
          viaByob.push(await readByob(pieces(encoded, write).pipeThrough(new stream.BaoVerifyStream(hash)), size));
        viaByob.push(await readByob(pieces(bad, 65536).pipeThrough(new stream.BaoVerifyStream(hash)), 5000));
        // Content beside an outboard, in writes that hold whole subtrees: verified where it lies
        // and copied straight into the waiting read's buffer, or into arrays of the stream's own.
        const outboard = stream.baoEncode(data, { outboard: true }).encoded;
        const badData = data.slice();
        badData[contentByte] ^= 0x04;
        const withOutboard = () => new stream.BaoVerifyStream(hash, { outboard });
        const viaOutboard = [
          await readByob(pieces(data, 65536).pipeThrough(withOutboard()), 65536),
          await readByob(pieces(data, 1 << 20).pipeThrough(withOutboard()), 1000),
          await readByob(pieces(badData, 65536).pipeThrough(withOutboard()), len + 100),
          await readPlain(pieces(data, 65536).pipeThrough(withOutboard())),
          await readPlain(pieces(badData, 65536).pipeThrough(withOutboard())),
        ];
        return { byob, plain, viaByob, viaOutboard };
      },
      { len, byte: tamper.at + 100, contentByte },
    );
    // WebKitGTK has no BYOB readers; Chromium and Firefox have.
    expect(r.byob).toBe(enginePage.engine !== 'webkit');
    expect(r.plain).toEqual([
      { released: len, exact: true, error: null },
      { released: tamper.contentStart, exact: true, error: 'IntegrityError' },
    ]);
    if (!r.byob) return;
    expect(r.viaByob.slice(0, 4)).toEqual(Array(4).fill({ released: len, exact: true, error: null }));
    expect(r.viaByob[4]).toEqual({ released: tamper.contentStart, exact: true, error: 'IntegrityError' });
    const whole = { released: len, exact: true, error: null };
    const beforeBad = { released: contentByte - (contentByte % 1024), exact: true, error: 'IntegrityError' };
    expect(r.viaOutboard).toEqual([whole, whole, beforeBad, whole, beforeBad]);
  });

  test('fetchVerified: a combined encoding and content plus outboard from blob: URLs; tampering fails the body', async ({
    enginePage,
  }) => {
    const r = await enginePage.evaluate(async () => {
      const { stream } = globalThis.blake3WebStream!;
      const data = new Uint8Array(250_000);
      for (let i = 0; i < data.length; i++) data[i] = (i * 13) % 256;
      const { hash, encoded } = stream.baoEncode(data);
      const outboard = stream.baoEncode(data, { outboard: true }).encoded;
      const url = (bytes: Uint8Array) => URL.createObjectURL(new Blob([bytes as Uint8Array<ArrayBuffer>]));
      const read = async (res: Response) => {
        const reader = res.body!.getReader();
        let n = 0;
        let same = true;
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) return { n, same, error: null };
            for (let i = 0; i < value.length; i++) same &&= value[i] === data[n + i];
            n += value.length;
          }
        } catch (e) {
          return { n, same, error: (e as Error).name };
        }
      };
      const bad = encoded.slice();
      bad[123_456] ^= 1;
      return {
        combined: await read(await stream.fetchVerified(url(encoded), hash)),
        outboardUrl: await read(await stream.fetchVerified(url(data), hash, { outboard: url(outboard) })),
        outboardBytes: await read(await stream.fetchVerified(url(data), hash, { outboard })),
        tampered: await read(await stream.fetchVerified(url(bad), hash)),
      };
    });
    expect(r.combined).toEqual({ n: 250_000, same: true, error: null });
    expect(r.outboardUrl).toEqual({ n: 250_000, same: true, error: null });
    expect(r.outboardBytes).toEqual({ n: 250_000, same: true, error: null });
    expect(r.tampered.error).toBe('IntegrityError');
    expect(r.tampered.same).toBe(true);
    expect(r.tampered.n).toBeLessThan(123_456);
  });
});
