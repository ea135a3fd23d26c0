// Reading byte ranges of a file in Node, on whichever thread needs it.
import { closeSync, fstatSync, openSync, readSync, type BigIntStats } from 'node:fs';
import type { OpenFile } from './_range-readers.js';
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
export const FILE_PIECE_BYTES = 1024 * 1024;

// Read buffers outlive tasks: a worker runs a couple of tasks at a time, each needs one.
const spareBuffers: Uint8Array[] = [];
const MAX_SPARE_BUFFERS = 4;

/**
 * Opens a file for ranged reads; verify() fails with a NotReadableError if it is not the file the
 * hash started on. Reads are synchronous: a worker has nothing else to do meanwhile, and a read
 * through the thread pool (fs/promises) costs a hop to another thread and back per piece: 1 GiB
 * from the page cache read at 1566 MB/s that way against 1770 synchronously, and two workers
 * reading and hashing reached 634 MB/s against 817 (docs/worker-pool.md). The calling thread
 * uses it only for inputs of a few KiB.
 */
export const openFile: OpenFile = async (file) => {
  const fd = openSync(file.path, 'r');
  let buffer: Uint8Array | undefined;
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
        const bytesRead = readSync(fd, buffer, done, length - done, start + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
      if (done !== length) throw notReadable(file.path, `ended at byte ${start + done} of ${file.size}`);
      return buffer.subarray(0, length);
    },
    async verify() {
      // Checked after reading: a file rewritten before or during the reads shows a new size or
      // mtime, a file renamed over the path since the hash started another inode, and those
      // bytes must not make it into a hash.
      const now = fstatSync(fd, { bigint: true });
      if (now.dev !== file.dev || now.ino !== file.ino)
        throw notReadable(file.path, 'another file was put at its path');
      if (now.size !== BigInt(file.size) || now.mtimeNs !== file.mtimeNs)
        throw notReadable(file.path, `it had ${file.size} bytes, now ${now.size}`);
    },
    async close() {
      if (buffer !== undefined && spareBuffers.length < MAX_SPARE_BUFFERS) spareBuffers.push(buffer);
      buffer = undefined;
      closeSync(fd);
    },
  };
};

function notReadable(path: string, detail: string): DOMException {
  return new DOMException(`${path} changed while it was being hashed (${detail})`, 'NotReadableError');
}
