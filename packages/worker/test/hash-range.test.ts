import { blake3, bytesToHex, type Blake3Opts } from '@blake3-web/core';
import { hashSubtree } from '@blake3-web/core/hazmat';
import { paint, Random, testSeed } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { statSync, utimesSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { hashFromReader, hashRange } from '../src/_hash-range.ts';
import { fileOpener, fileSnapshot, openFile } from '../src/_open-file-node.ts';
import {
  blobReader,
  blobStreamReader,
  blobStreamsAreByteStreams,
  bytesReader,
  type OpenFile,
} from '../src/_range-readers.ts';
import { planSubtrees, subtreeRange } from '../src/plan-subtrees.ts';
import type { HashTask, TaskSource } from '../src/protocol.ts';
import { settlesWithin, tempDir } from './_helpers.ts';

const noFiles: OpenFile = () => Promise.reject(new Error('no files here'));
const modes: Blake3Opts[] = [{}, { key: paint(32, 1) }, { context: 'blake3-web hashRange test' }];

/** Node's file reader with another piece size. */
const openFileInPieces =
  (pieceBytes: number): OpenFile =>
  async (file) => ({ ...(await openFile(file)), pieceBytes });

describe("a worker's task (run on this thread)", () => {
  const input = paint(5000);
  const blob = new Blob([input]);

  it('hashes a subtree of a Blob, of bytes, and a whole input as the root', async () => {
    const sub: HashTask = {
      source: { kind: 'blob', blob, size: blob.size },
      start: 2048,
      end: 4096,
      output: 'subtree',
      opts: { context: 'c' },
    };
    assert.deepEqual(await hashRange(sub, noFiles), hashSubtree(input.subarray(2048, 4096), 2048, { context: 'c' }));
    const bytes: HashTask = {
      source: { kind: 'bytes', bytes: input.slice(4096) },
      start: 4096,
      end: 5000,
      output: 'subtree',
      opts: {},
    };
    assert.deepEqual(await hashRange(bytes, noFiles), hashSubtree(input.subarray(4096), 4096));
    const root: HashTask = {
      source: { kind: 'blob', blob, size: blob.size },
      start: 0,
      end: 5000,
      output: 'root',
      opts: { dkLen: 77 },
    };
    assert.deepEqual(await hashRange(root, noFiles), blake3(input, { dkLen: 77 }));
  });

  it('reads in pieces smaller than the subtree and merges them into the same chaining value', async () => {
    const rng = new Random(testSeed());
    for (let round = 0; round < 60; round++) {
      const subtreeBytes = 2 ** rng.int(11, 15);
      const pieceBytes = 2 ** rng.int(10, Math.log2(subtreeBytes));
      const total = rng.pick([
        rng.int(subtreeBytes + 1, 20 * subtreeBytes),
        subtreeBytes * rng.int(2, 9) + rng.pick([-1024, -1, 0, 1, 1024]),
      ]);
      const data = rng.bytes(total);
      const opts = modes[round % 3];
      const plan = planSubtrees(total, subtreeBytes, 1);
      const blob = new Blob([data]);
      const source: TaskSource = { kind: 'blob', blob, size: data.length };
      for (let i = 0; i < plan.count; i++) {
        const { start, end } = subtreeRange(plan, i);
        const reader =
          round % 2 === 0
            ? blobReader(blob, pieceBytes)
            : { ...bytesReader(data.slice(start, end), start), pieceBytes };
        const got = await hashFromReader({ source, start, end, output: 'subtree', opts }, reader);
        const expected = hashSubtree(data.subarray(start, end), start, opts);
        assert.equal(
          bytesToHex(got),
          bytesToHex(expected),
          `${total} bytes, subtree ${i} [${start}, ${end}) in ${pieceBytes}-byte pieces`,
        );
      }
      const dkLen = rng.pick([0, 1, 32, 131]);
      const root = await hashFromReader(
        { source, start: 0, end: total, output: 'root', opts: { ...opts, dkLen } },
        blobReader(blob, pieceBytes),
      );
      assert.equal(
        bytesToHex(root),
        bytesToHex(blake3(data, { ...opts, dkLen })),
        `root of ${total} bytes in ${pieceBytes}-byte pieces`,
      );
    }
  });

  it('rejects ranges that Blob.slice would clamp into a wrong hash', async () => {
    const task = (start: number, end: number): HashTask => ({
      source: { kind: 'blob', blob, size: blob.size },
      start,
      end,
      output: 'subtree',
      opts: {},
    });
    await assert.rejects(hashRange(task(4096, 5001), noFiles), {
      name: 'RangeError',
      message: /within the 5000-byte input/,
    });
    await assert.rejects(hashRange(task(1024, 1024), noFiles), { name: 'RangeError', message: /non-empty/ });
    await assert.rejects(hashRange(task(-1024, 10), noFiles), { name: 'RangeError', message: /start/ });
    await assert.rejects(hashRange(task(1000, 2000), noFiles), {
      name: 'RangeError',
      message: /inputOffset.*multiple of 1024/,
    });
    await assert.rejects(hashRange({ ...task(0, 5000), output: 'root', start: 1024 }, noFiles), {
      name: 'RangeError',
      message: /root task must start at 0/,
    });
    const short: HashTask = {
      source: { kind: 'bytes', bytes: new Uint8Array(10) },
      start: 0,
      end: 11,
      output: 'subtree',
      opts: {},
    };
    await assert.rejects(hashRange(short, noFiles), { name: 'RangeError', message: /11 bytes long, got 10/ });
    const unsized = {
      source: { kind: 'blob', blob },
      start: 0,
      end: 1024,
      output: 'subtree',
      opts: {},
    } as unknown as HashTask;
    await assert.rejects(hashRange(unsized, noFiles), {
      name: 'TypeError',
      message: /^task.source.size must be a number, got undefined/,
    });
    const odd = { source: { kind: 'socket' }, start: 0, end: 1, output: 'subtree', opts: {} } as unknown as HashTask;
    await assert.rejects(hashRange(odd, noFiles), { name: 'TypeError', message: /task.source.kind/ });
  });

  it('reads files by path in pieces, and refuses a file that changed since the hash started', async () => {
    const data = paint(40_000);
    const path = join(tempDir(), 'f.bin');
    writeFileSync(path, data);
    const info = statSync(path);
    const file = fileSnapshot(path, statSync(path, { bigint: true }));
    const task = (start: number, end: number, f = file): HashTask => ({
      source: { kind: 'file', file: f },
      start,
      end,
      output: 'subtree',
      opts: {},
    });
    assert.deepEqual(
      await hashRange(task(16384, 32768), openFileInPieces(4096)),
      hashSubtree(data.subarray(16384, 32768), 16384),
    );
    assert.deepEqual(await hashRange({ ...task(0, 40_000), output: 'root' }, openFileInPieces(2048)), blake3(data));
    await assert.rejects(hashRange(task(32768, 40_001), openFile), { name: 'RangeError', message: /40000-byte input/ });
    utimesSync(path, info.atime, new Date(info.mtimeMs + 5000));
    await assert.rejects(hashRange(task(0, 1024), openFile), {
      name: 'NotReadableError',
      message: /changed while it was being hashed/,
    });
    writeFileSync(path, data.subarray(0, 30_000));
    const shrunk = { ...file, mtimeNs: statSync(path, { bigint: true }).mtimeNs };
    await assert.rejects(hashRange(task(16384, 32768, shrunk), openFile), {
      name: 'NotReadableError',
      message: /ended at byte 30000/,
    });
    await assert.rejects(hashRange(task(0, 1024, { ...file, path: path + '.gone' }), openFile), {
      code: 'ENOENT',
      syscall: 'open',
    });
  });
});

describe('reading Blobs', () => {
  it('a Blob that reads short (a File whose file shrank, in Firefox) fails with NotReadableError', async () => {
    // A Blob whose slices come back shorter than asked, as Firefox's do for a shrunk file.
    const data = paint(8192);
    const shrinking = {
      size: 8192,
      slice: (start: number, end: number) => new Blob([data.subarray(start, Math.min(end, 6000))]),
    } as unknown as Blob;
    const task: HashTask = {
      source: { kind: 'blob', blob: shrinking, size: 8192 },
      start: 4096,
      end: 8192,
      output: 'subtree',
      opts: {},
    };
    await assert.rejects(hashRange(task, noFiles), {
      name: 'NotReadableError',
      message: /\[4096, 8192\) gave 1904 bytes/,
    });
  });

  it('a Blob read as one byte stream per task hashes as the slice reader does, at every size around a piece', async () => {
    assert.ok(blobStreamsAreByteStreams(), 'Node 20 Blob streams are byte streams');
    const piece = 4096;
    for (const total of [1, 1023, 1024, 1025, piece - 1, piece, piece + 1, 3 * piece + 5, 16 * piece]) {
      const data = paint(total, total);
      const blob = new Blob([data]);
      const root: HashTask = {
        source: { kind: 'blob', blob, size: total },
        start: 0,
        end: total,
        output: 'root',
        opts: {},
      };
      const streamed = blobStreamReader(blob, 0, total, piece);
      assert.equal(bytesToHex(await hashFromReader(root, streamed)), bytesToHex(blake3(data)), `${total} bytes`);
      await streamed.verify();
      await streamed.close();
      // A subtree of four pieces that starts past 0: the stream is of the slice, positions are the input's.
      const start = 4 * piece;
      if (total <= start) continue;
      const end = Math.min(total, 2 * start);
      const sub: HashTask = { ...root, start, end, output: 'subtree', opts: { context: 'stream' } };
      const reader = blobStreamReader(blob, start, end, piece);
      assert.deepEqual(
        await hashFromReader(sub, reader),
        hashSubtree(data.subarray(start, end), start, { context: 'stream' }),
        `[${start}, ${end}) of ${total}`,
      );
      await reader.verify();
      await reader.close();
      assert.deepEqual(
        await hashFromReader(sub, blobReader(blob, piece)),
        hashSubtree(data.subarray(start, end), start, { context: 'stream' }),
      );
    }
  });

  it('a byte stream that ends early or goes on past the range fails with NotReadableError', async () => {
    const data = paint(10_000);
    const lying = (delta: number) =>
      ({ size: 8192, slice: (a: number, b: number) => new Blob([data.subarray(a, b + delta)]) }) as unknown as Blob;
    const task: HashTask = {
      source: { kind: 'blob', blob: lying(-1), size: 8192 },
      start: 4096,
      end: 8192,
      output: 'subtree',
      opts: {},
    };
    await assert.rejects(hashRange(task, noFiles), {
      name: 'NotReadableError',
      message: /\[4096, 8192\) gave 4095 bytes/,
    });
    const longer = { ...task, source: { kind: 'blob' as const, blob: lying(1), size: 8192 } };
    await assert.rejects(hashRange(longer, noFiles), {
      name: 'NotReadableError',
      message: /\[4096, 8192\) gave 4097 bytes/,
    });
    // A stream that errors (Chromium: a TypeError for a File whose file changed) is a NotReadableError too.
    const failing = {
      size: 8192,
      slice: () => ({
        stream: () => new ReadableStream({ type: 'bytes', pull: (c) => c.error(new TypeError('network error')) }),
      }),
    } as unknown as Blob;
    const failed = { ...task, source: { kind: 'blob' as const, blob: failing, size: 8192 } };
    await assert.rejects(hashRange(failed, noFiles), { name: 'NotReadableError', message: /TypeError: network error/ });
    // Reads out of order are a bug in the caller, not a short file.
    const reader = blobStreamReader(new Blob([data]), 0, 8192, 4096);
    await assert.rejects(reader.read(4096, 8192), { name: 'RangeError', message: /in order/ });
    await reader.close();
  });

  it('a byte stream that stops delivering fails with NotReadableError instead of leaving the hash pending', async () => {
    // A live worker stuck on such a read still answers the pool's liveness probe: without a
    // limit on the read itself, the hash would never settle.
    const stuck = (after: number) =>
      ({
        size: 8192,
        slice: (a: number, b: number) => ({
          stream: () => {
            let sent = 0;
            return new ReadableStream({
              type: 'bytes',
              async pull(c) {
                if (sent >= after) await new Promise<void>(() => undefined); // nothing, ever
                const n = Math.min(after - sent, b - a - sent);
                c.enqueue(new Uint8Array(n));
                sent += n;
              },
            });
          },
        }),
      }) as unknown as Blob;
    const read = async (blob: Blob) => {
      const reader = blobStreamReader(blob, 0, 8192, 4096, 50);
      try {
        await reader.read(0, 4096);
        await reader.read(4096, 8192);
        await reader.verify();
      } finally {
        await reader.close();
      }
    };
    const t0 = performance.now();
    await assert.rejects(read(stuck(0)), {
      name: 'NotReadableError',
      message: /\[0, 4096\) of \[0, 8192\).*nothing for 50 ms/,
    });
    await assert.rejects(read(stuck(5000)), { name: 'NotReadableError', message: /\[5000, 8192\) of \[0, 8192\)/ });
    // All of the range arrived but the end of the stream does not.
    await assert.rejects(read(stuck(8192)), { name: 'NotReadableError', message: /past the end of \[0, 8192\)/ });
    assert.ok(performance.now() - t0 < 5000, 'each stalled read fails after its limit, not later');
  });
});

describe('reading Blob slices (where Blob streams are not byte streams: WebKit)', () => {
  it('a slice read that never settles fails with NotReadableError instead of leaving the hash pending', async () => {
    const data = paint(8192);
    // Slices whose arrayBuffer() never settles once past byte 4096, as a stalled engine read would.
    const stuck = {
      size: 8192,
      slice: (a: number, b: number) =>
        a >= 4096 ? { arrayBuffer: () => new Promise(() => undefined) } : new Blob([data.subarray(a, b)]),
    } as unknown as Blob;
    const task: HashTask = {
      source: { kind: 'blob', blob: stuck, size: 8192 },
      start: 0,
      end: 8192,
      output: 'root',
      opts: {},
    };
    const t0 = performance.now();
    await assert.rejects(settlesWithin(hashFromReader(task, blobReader(stuck, 4096, 50)), 5000, 'the hash'), {
      name: 'NotReadableError',
      message: /reading bytes \[4096, 8192\): the engine delivered nothing for 50 ms/,
    });
    assert.ok(performance.now() - t0 < 5000, 'the stalled read fails after its limit, not later');
  });
});

describe('reading files (Node)', () => {
  it('a file read the file system never completes fails with NotReadableError, and the reader still closes', async () => {
    const path = join(tempDir(), 'stuck.bin');
    const data = paint(8192);
    writeFileSync(path, data);
    const info = statSync(path, { bigint: true });
    // The file system answers every read but the one of bytes from 4096, as a hung network mount would.
    const probe = await open(path, 'r');
    const handleProto = Object.getPrototypeOf(probe) as { read: (...args: unknown[]) => Promise<unknown> };
    await probe.close();
    const read = handleProto.read;
    handleProto.read = function (this: unknown, ...args: unknown[]) {
      return args[3] === 4096 ? new Promise(() => undefined) : read.apply(this, args);
    };
    try {
      const reader = await fileOpener(50)(fileSnapshot(path, info));
      const t0 = performance.now();
      assert.deepEqual(await reader.read(0, 4096), data.subarray(0, 4096));
      await assert.rejects(reader.read(4096, 8192), {
        name: 'NotReadableError',
        message: /reading bytes \[4096, 8192\) of .*stuck\.bin: the file system delivered nothing for 50 ms/,
      });
      await reader.close();
      assert.ok(performance.now() - t0 < 5000, 'the stalled read fails after its limit, not later');
    } finally {
      handleProto.read = read;
    }
  });
});
