// What a worker does with one task: read its bytes piece by piece and hash them. Kept apart from
// worker.ts (which only wires this to comlink) so the same code runs in tests on the main thread.
import { blake3, ready } from '@blake3-web/core';
import { hashSubtree } from '@blake3-web/core/hazmat';
import { anInteger, aRange } from './_assert.js';
import { ChainingValueStack } from './merge-chaining-values.js';
import type { FileSnapshot, HashTask } from './protocol.js';

/**
 * Files (Node) are read and hashed this many bytes at a time, into a reused buffer: memory per
 * task is one piece whatever the subtree size, and there are no page faults of a fresh
 * subtree-sized buffer per task (reading 8 MiB subtrees whole cost about 2.7 ms more per task,
 * docs/worker-pool.md). A power of two, so every piece is a subtree of the task's subtree.
 */
export const FILE_PIECE_BYTES = 1024 * 1024;

/**
 * Blobs are read this many bytes at a time: each read is a round trip to the engine's blob store
 * (in Chromium, to another process), so small reads are slow there: 1 MiB slices read at about
 * 500-600 MB/s in Chromium and WebKit, 4-16 MiB slices at 0.8-1.3 GB/s (docs/worker-pool.md).
 * 8 MiB keeps two tasks in flight per worker under 16 MiB of buffers.
 */
export const BLOB_PIECE_BYTES = 8 * 1024 * 1024;

/** Reads an input's bytes by range. */
export interface RangeReader {
  /** Bytes [start, end) of the input; the view may be reused by the next read. */
  read(start: number, end: number): Promise<Uint8Array>;
  /** Fails (NotReadableError) if what was read may not be the input the hash started on. */
  verify(): Promise<void>;
  close(): Promise<void>;
}

/** Opens a file by path (Node); fails in browsers. */
export type OpenFile = (file: FileSnapshot) => Promise<RangeReader>;

/**
 * Bytes [start, end) of a Blob. A File whose file shrank on disk reads short in Firefox (153)
 * instead of failing as Chromium and WebKit do; short bytes must never reach a hash.
 */
export async function readBlobRange(blob: Blob, start: number, end: number): Promise<Uint8Array> {
  const bytes = new Uint8Array(await blob.slice(start, end).arrayBuffer());
  if (bytes.length !== end - start) {
    throw new DOMException(`reading bytes [${start}, ${end}) gave ${bytes.length} bytes: the file changed while it was being hashed`, 'NotReadableError');
  }
  return bytes;
}

function blobReader(blob: Blob): RangeReader {
  return {
    read: (start, end) => readBlobRange(blob, start, end),
    // A Blob is immutable; a File whose file changed fails its reads with NotReadableError.
    verify: async () => undefined,
    close: async () => undefined,
  };
}

function bytesReader(bytes: Uint8Array, offset: number): RangeReader {
  return {
    read: async (start, end) => bytes.subarray(start - offset, end - offset),
    verify: async () => undefined,
    close: async () => undefined,
  };
}

async function openTaskReader(task: HashTask, openFile: OpenFile): Promise<RangeReader> {
  const { source, start, end } = task;
  switch (source.kind) {
    case 'blob': {
      // Blob.slice clamps out-of-range ends silently, which would hash the wrong bytes.
      aRange(start, end, anInteger(source.size, 'task.source.size', 0, Number.MAX_SAFE_INTEGER));
      const now = source.blob.size;
      if (now !== source.size) {
        throw new DOMException(`the Blob had ${source.size} bytes when the hash started and says ${now} now: its size (blob.size) cannot be trusted`, 'NotReadableError');
      }
      return blobReader(source.blob);
    }
    case 'bytes':
      aRange(start, end, Number.MAX_SAFE_INTEGER);
      if (source.bytes.length !== end - start) {
        throw new RangeError(`task bytes must be end - start = ${end - start} bytes long, got ${source.bytes.length}`);
      }
      return bytesReader(source.bytes, start);
    case 'file':
      aRange(start, end, source.file.size);
      return openFile(source.file);
    default:
      throw new TypeError(`task.source.kind must be 'blob', 'bytes' or 'file', got ${JSON.stringify((source as { kind: unknown }).kind)}`);
  }
}

let backendReady: Promise<void> | undefined;

/** Hashes one task: a subtree's chaining value, or the whole input's hash. */
export async function hashRange(task: HashTask, openFile: OpenFile, pieceBytesOverride?: number): Promise<Uint8Array> {
  // The core may still be compiling its fastest backend; waiting once costs nothing later.
  await (backendReady ??= ready());
  if (task.output === 'root' && task.start !== 0) throw new RangeError(`a root task must start at 0, got ${task.start}`);
  const { dkLen: _dkLen, ...mode } = task.opts;
  const reader = await openTaskReader(task, openFile);
  // Bytes already in memory are hashed in one call.
  const pieceBytes = pieceBytesOverride ?? { blob: BLOB_PIECE_BYTES, file: FILE_PIECE_BYTES, bytes: 2 ** 30 }[task.source.kind];
  try {
    const { start, end } = task;
    let out: Uint8Array;
    if (task.output === 'root') {
      const hasher = blake3.create(task.opts);
      for (let a = start; a < end; a += pieceBytes) hasher.update(await reader.read(a, Math.min(end, a + pieceBytes)));
      out = hasher.digest();
    } else if (end - start <= pieceBytes) {
      out = hashSubtree(await reader.read(start, end), start, mode);
    } else {
      // The task's subtree, from piece subtrees merged by the same stack rule as the pool's.
      const stack = new ChainingValueStack(mode);
      let a = start;
      for (; a + pieceBytes < end; a += pieceBytes) stack.addSubtreeChainingValue(hashSubtree(await reader.read(a, a + pieceBytes), a, mode));
      out = stack.finalizeNonRoot(hashSubtree(await reader.read(a, end), a, mode));
    }
    await reader.verify();
    return out;
  } finally {
    await reader.close();
  }
}
