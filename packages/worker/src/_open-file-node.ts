// Reading byte ranges of a file in Node, on whichever thread needs it.
import type { BigIntStats } from 'node:fs';
import { open } from 'node:fs/promises';
import type { OpenFile } from './_range-readers.js';
import { readOrStall, STALL_MS } from './_read-or-stall.js';
import type { FileSnapshot } from './protocol.js';

/** What a hash of `path` expects to find there, from a stat with `bigint: true` (exact inodes and ns). */
export function fileSnapshot(path: string, info: BigIntStats): FileSnapshot {
  return { path, size: Number(info.size), mtimeNs: info.mtimeNs, dev: info.dev, ino: info.ino };
}

/**
 * Files are read and hashed this many bytes at a time, into a reused buffer: memory per task is
 * one piece whatever the subtree size, and there are no page faults of a fresh subtree-sized
 * buffer per task (reading 8 MiB subtrees whole cost about 2.7 ms more per task,
 * docs/worker-pool.md).
 */
export const FILE_PIECE_BYTES: number = 1024 * 1024;

// Read buffers outlive tasks: a worker runs a couple of tasks at a time, each needs one.
const spareBuffers: Uint8Array[] = [];
const MAX_SPARE_BUFFERS = 4;

/**
 * Opens files for ranged reads; verify() fails with a NotReadableError if it is not the file the
 * hash started on. Every call to the file system goes through the thread pool and readOrStall:
 * while the disk works, the worker's event loop is free to answer the pool's liveness probe, so a
 * slow disk or a network file system never makes a healthy worker look dead, and a call that
 * never completes fails after `stallMs` instead of leaving the hash pending. Rejected: reads with
 * readSync, faster from the page cache with both cores hashing (quiet machine, 1 GiB: pool of 2
 * 908 against 812 MB/s, though a pool of 1 gave 554 against 654; docs/worker-pool.md), because a
 * worker blocked in one cannot answer the probe and a slow disk got healthy workers declared dead.
 */
export function fileOpener(stallMs: number = STALL_MS): OpenFile {
  return async (file) => {
    const { path } = file;
    const guard = <T>(call: Promise<T>, what: string) => readOrStall(call, stallMs, what, 'the file system');
    const opening = open(path, 'r');
    // A handle that comes after its open stalled is closed at once.
    opening.catch(() => undefined);
    const handle = await guard(opening, `opening ${path}`).catch((e: unknown) => {
      void opening.then((h) => h.close()).catch(() => undefined);
      throw e;
    });
    let buffer: Uint8Array | undefined;
    /** A call still running after its stall: the buffer it may write into is never reused. */
    let abandoned = false;
    const call = async <T>(op: Promise<T>, what: string): Promise<T> => {
      let settled = false;
      void op.then(
        () => (settled = true),
        () => (settled = true),
      );
      try {
        return await guard(op, what);
      } catch (e) {
        if (!settled) abandoned = true;
        throw e;
      }
    };
    return {
      pieceBytes: FILE_PIECE_BYTES,
      async read(start, end) {
        const length = end - start;
        if (buffer === undefined || buffer.length < length)
          buffer = spareBuffers.find((b) => b.length >= length) ?? new Uint8Array(length);
        const i = spareBuffers.indexOf(buffer);
        if (i >= 0) spareBuffers.splice(i, 1);
        let done = 0;
        while (done < length) {
          const { bytesRead } = await call(
            handle.read(buffer, done, length - done, start + done),
            `reading bytes [${start + done}, ${end}) of ${path}`,
          );
          if (bytesRead === 0) break;
          done += bytesRead;
        }
        if (done !== length) throw notReadable(path, `ended at byte ${start + done} of ${file.size}`);
        return buffer.subarray(0, length);
      },
      async verify() {
        // Checked after reading: a file rewritten before or during the reads shows a new size or
        // mtime, a file renamed over the path since the hash started another inode, and those
        // bytes must not make it into a hash.
        const now = await call(handle.stat({ bigint: true }), `checking ${path}`);
        if (now.dev !== file.dev || now.ino !== file.ino) throw notReadable(path, 'another file was put at its path');
        if (now.size !== BigInt(file.size) || now.mtimeNs !== file.mtimeNs)
          throw notReadable(path, `it had ${file.size} bytes, now ${now.size}`);
      },
      async close() {
        if (buffer !== undefined && !abandoned && spareBuffers.length < MAX_SPARE_BUFFERS) spareBuffers.push(buffer);
        buffer = undefined;
        // FileHandle.close waits for the calls in flight: after a stall, that may be never.
        const closing = handle.close();
        if (abandoned) closing.catch(() => undefined);
        else await closing;
      },
    };
  };
}

/** Node's file reader, with reads that stall after STALL_MS. */
export const openFile: OpenFile = fileOpener();

function notReadable(path: string, detail: string): DOMException {
  return new DOMException(`${path} changed while it was being hashed (${detail})`, 'NotReadableError');
}
