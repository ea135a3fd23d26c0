// What a worker does with one task: read its bytes, hash them. Kept apart from worker.ts (which
// only wires this to comlink) so the same code runs in tests on the main thread.
import { blake3, ready } from '@blake3-web/core';
import { hashSubtree } from '@blake3-web/core/hazmat';
import { aRange } from './_assert.js';
import type { FileSnapshot, HashTask } from './protocol.js';

/** Reads bytes [start, end) of a file, failing with a NotReadableError if it changed. */
export type ReadFileRange = (file: FileSnapshot, start: number, end: number) => Promise<Uint8Array>;

async function readTaskBytes(task: HashTask, readFileRange: ReadFileRange): Promise<Uint8Array> {
  const { source, start, end } = task;
  switch (source.kind) {
    case 'blob':
      // Blob.slice clamps out-of-range ends silently, which would hash the wrong bytes.
      aRange(start, end, source.blob.size);
      return new Uint8Array(await source.blob.slice(start, end).arrayBuffer());
    case 'bytes':
      aRange(start, end, Number.MAX_SAFE_INTEGER);
      if (source.bytes.length !== end - start) {
        throw new RangeError(`task bytes must be end - start = ${end - start} bytes long, got ${source.bytes.length}`);
      }
      return source.bytes;
    case 'file':
      aRange(start, end, source.file.size);
      return readFileRange(source.file, start, end);
    default:
      throw new TypeError(`task.source.kind must be 'blob', 'bytes' or 'file', got ${JSON.stringify((source as { kind: unknown }).kind)}`);
  }
}

let backendReady: Promise<void> | undefined;

/** Hashes one task: a subtree's chaining value, or the whole input's hash. */
export async function hashRange(task: HashTask, readFileRange: ReadFileRange): Promise<Uint8Array> {
  // The core may still be compiling its fastest backend; waiting once costs nothing later.
  await (backendReady ??= ready());
  const bytes = await readTaskBytes(task, readFileRange);
  if (task.output === 'root') {
    if (task.start !== 0) throw new RangeError(`a root task must start at 0, got ${task.start}`);
    return blake3(bytes, task.opts);
  }
  const { dkLen: _ignored, ...mode } = task.opts;
  return hashSubtree(bytes, task.start, mode);
}
