// What a worker does with one task: read its bytes piece by piece and hash them. Kept apart from
// worker.ts (which only wires this to comlink) so the same code runs in tests on the main thread.
import { blake3, ready } from '@blake3-web/core';
import { Mode, subtreeHasher } from '@blake3-web/core/hazmat';
import { EventLoopTurns } from './_event-loop-turns.js';
import { openTaskReader, type OpenFile, type RangeReader } from './_range-readers.js';
import type { HashTask } from './protocol.js';

let backendReady: Promise<void> | undefined;

/** Hashes one task: a subtree's chaining value, or the whole input's hash. */
export async function hashRange(task: HashTask, openFile: OpenFile): Promise<Uint8Array> {
  // The core may still be compiling its fastest backend; waiting once costs nothing later.
  await (backendReady ??= ready());
  if (task.output === 'root' && task.start !== 0)
    throw new RangeError(`a root task must start at 0, got ${task.start}`);
  const reader = await openTaskReader(task, openFile);
  try {
    const out = await hashFromReader(task, reader);
    await reader.verify();
    return out;
  } finally {
    await reader.close();
  }
}

/** Hashes the task's range as `reader` gives it; the caller verifies and closes the reader. */
export async function hashFromReader(task: HashTask, reader: RangeReader): Promise<Uint8Array> {
  if (task.output === 'root') return (await feed(blake3.create(task.opts), task, reader)).digest();
  // The range is a subtree of the whole input, read into one hasher piece after piece. Its mode
  // may come with the root's dkLen, which a chaining value does not use.
  return (await feed(subtreeHasher(task.start, new Mode(task.opts)), task, reader)).finalizeNonRoot();
}

/**
 * Reads the task's range into `hasher` one piece at a time, letting the event loop turn between
 * pieces however long the task runs: the worker answers the liveness probe meanwhile.
 */
async function feed<H extends { update(bytes: Uint8Array): unknown }>(
  hasher: H,
  task: HashTask,
  reader: RangeReader,
): Promise<H> {
  const { start, end } = task;
  const turns = new EventLoopTurns();
  for (let a = start; a < end; a += reader.pieceBytes) {
    hasher.update(await reader.read(a, Math.min(end, a + reader.pieceBytes)));
    if (turns.due) await turns.take();
  }
  return hasher;
}
