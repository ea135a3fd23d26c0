// Reading byte ranges of a file in Node, on whichever thread needs it.
import type { BigIntStats } from 'node:fs';
import { open } from 'node:fs/promises';
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

/** Opens a file for ranged reads; verify() fails with a NotReadableError if it is not the file the hash started on. */
export const openFile: OpenFile = async (file) => {
  const handle = await open(file.path, 'r');
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
        const { bytesRead } = await handle.read(buffer, done, length - done, start + done);
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
      const now = await handle.stat({ bigint: true });
      if (now.dev !== file.dev || now.ino !== file.ino)
        throw notReadable(file.path, 'another file was put at its path');
      if (now.size !== BigInt(file.size) || now.mtimeNs !== file.mtimeNs)
        throw notReadable(file.path, `it had ${file.size} bytes, now ${now.size}`);
    },
    async close() {
      if (buffer !== undefined && spareBuffers.length < MAX_SPARE_BUFFERS) spareBuffers.push(buffer);
      buffer = undefined;
      await handle.close();
    },
  };
};

function notReadable(path: string, detail: string): DOMException {
  return new DOMException(`${path} changed while it was being hashed (${detail})`, 'NotReadableError');
}
