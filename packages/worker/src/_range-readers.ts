// Where a task's bytes come from: one reader per kind of source, each reading in the piece size
// that suits it. The hashing loop (_hash-range.ts) knows only the RangeReader shape.
import { anInteger, aRange } from './_assert.js';
import { readOrStall, STALL_MS } from './_read-or-stall.js';
import type { FileSnapshot, HashTask } from './protocol.js';

/** Reads an input's bytes by range. */
export interface RangeReader {
  /** Bytes per read that this source reads best in (a power of two, so every piece of a subtree is one). */
  readonly pieceBytes: number;
  /** Bytes [start, end) of the input; the view may be reused by the next read. */
  read(start: number, end: number): Promise<Uint8Array>;
  /** Fails (NotReadableError) if what was read may not be the input the hash started on. */
  verify(): Promise<void>;
  close(): Promise<void>;
}

/** Opens a file by path (Node); fails in browsers. */
export type OpenFile = (file: FileSnapshot) => Promise<RangeReader>;

/**
 * Blobs are read this many bytes at a time: each read is a round trip to the engine's blob store
 * (in Chromium, to another process), so small reads are slow there: 1 MiB slices read at about
 * 500-600 MB/s in Chromium and WebKit, 4-16 MiB slices at 0.8-1.3 GB/s (docs/worker-pool.md).
 * 8 MiB keeps two tasks in flight per worker under 16 MiB of buffers.
 */
export const BLOB_PIECE_BYTES: number = 8 * 1024 * 1024;

function shortRead(start: number, end: number, got: number): DOMException {
  return new DOMException(
    `reading bytes [${start}, ${end}) gave ${got} bytes: the file changed while it was being hashed`,
    'NotReadableError',
  );
}

/**
 * Bytes [start, end) of a Blob, or a NotReadableError once the read has brought nothing for
 * `stallMs`. A File whose file shrank on disk reads short in Firefox (153) instead of failing as
 * Chromium and WebKit do; short bytes must never reach a hash.
 */
export async function readBlobRange(
  blob: Blob,
  start: number,
  end: number,
  stallMs: number = STALL_MS,
): Promise<Uint8Array> {
  const read = blob.slice(start, end).arrayBuffer();
  const bytes = new Uint8Array(await readOrStall(read, stallMs, `reading bytes [${start}, ${end})`));
  if (bytes.length !== end - start) throw shortRead(start, end, bytes.length);
  return bytes;
}

/**
 * Where the engine's Blob streams are byte streams (Chromium, Firefox), a task's range is one
 * stream read into a reused buffer of this size: small enough that the bytes are still in cache
 * when hashed, and each read hands over what the engine has, with no round trip per piece
 * (docs/worker-pool.md: read ceilings by reader).
 */
export const BYOB_PIECE_BYTES: number = 1024 * 1024;

let byobSupport: boolean | undefined;

/** Whether Blob streams take BYOB readers here (WebKitGTK 2.50: no). A feature test, once. */
export function blobStreamsAreByteStreams(): boolean {
  if (byobSupport === undefined) {
    try {
      const stream = new Blob([]).stream();
      stream.getReader({ mode: 'byob' }).releaseLock();
      byobSupport = true;
    } catch {
      byobSupport = false;
    }
  }
  return byobSupport;
}

/**
 * What a Blob stream's read failed with, as the slice readers fail: Chromium (156) errors the
 * stream of a File whose file changed with a TypeError where its arrayBuffer() gives a
 * NotReadableError; the engine's own words stay in the message.
 */
function streamFailed(e: unknown, start: number, end: number): unknown {
  if (e instanceof DOMException) return e;
  const detail = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  return new DOMException(
    `reading bytes [${start}, ${end}) failed (${detail}): the file changed or cannot be read`,
    'NotReadableError',
  );
}

/**
 * Bytes [start, end) of a Blob as one byte stream read in order into a reused buffer. Reads must
 * come in order and cover the range; verify() fails unless the stream ended exactly at `end`.
 */
export function blobStreamReader(
  blob: Blob,
  start: number,
  end: number,
  pieceBytes: number = BYOB_PIECE_BYTES,
  stallMs: number = STALL_MS,
): RangeReader {
  let reader: ReadableStreamBYOBReader | undefined;
  let buffer: ArrayBuffer = new ArrayBuffer(Math.min(pieceBytes, Math.max(1, end - start)));
  let at = start;
  return {
    pieceBytes,
    async read(a, b) {
      if (a !== at || b > end || b - a > buffer.byteLength)
        throw new RangeError(`a stream reader reads in order: expected bytes from ${at}, got [${a}, ${b})`);
      reader ??= blob.slice(start, end).stream().getReader({ mode: 'byob' });
      let filled = 0;
      while (filled < b - a) {
        const { done, value } = await readOrStall(
          reader.read(new Uint8Array(buffer, filled, b - a - filled)),
          stallMs,
          `reading bytes [${a + filled}, ${b}) of [${start}, ${end})`,
        ).catch((e: unknown) => Promise.reject(streamFailed(e, start, end)));
        if (done || value === undefined) throw shortRead(start, end, a - start + filled);
        buffer = value.buffer as ArrayBuffer;
        filled += value.length;
      }
      at = b;
      return new Uint8Array(buffer, 0, filled);
    },
    async verify() {
      if (reader === undefined) return;
      // One more read must find the end: a stream that goes on is not the range asked for.
      const { done, value } = await readOrStall(
        reader.read(new Uint8Array(buffer, 0, 1)),
        stallMs,
        `reading past the end of [${start}, ${end})`,
      );
      if (!done) throw shortRead(start, end, at - start + (value?.length ?? 0));
    },
    async close() {
      if (reader === undefined) return;
      await reader.cancel().catch(() => undefined);
      reader = undefined;
    },
  };
}

export function blobReader(blob: Blob, pieceBytes: number = BLOB_PIECE_BYTES, stallMs: number = STALL_MS): RangeReader {
  return {
    pieceBytes,
    read: (start, end) => readBlobRange(blob, start, end, stallMs),
    // A Blob is immutable; a File whose file changed fails its reads with NotReadableError.
    verify: async () => undefined,
    close: async () => undefined,
  };
}

/**
 * Bytes already in memory are handed over this many at a time: reading them costs nothing, but
 * between pieces the event loop may turn (_event-loop-turns.ts).
 */
export const BYTES_PIECE_BYTES: number = 1024 * 1024;

/** Bytes already in memory, which are bytes [offset, offset + bytes.length) of the input. */
export function bytesReader(bytes: Uint8Array, offset: number): RangeReader {
  return {
    pieceBytes: BYTES_PIECE_BYTES,
    read: async (start, end) => bytes.subarray(start - offset, end - offset),
    verify: async () => undefined,
    close: async () => undefined,
  };
}

/** The reader of a task's source, once the task's range is checked against it. */
export async function openTaskReader(task: HashTask, openFile: OpenFile): Promise<RangeReader> {
  const { source, start, end } = task;
  switch (source.kind) {
    case 'blob': {
      // Blob.slice clamps out-of-range ends silently, which would hash the wrong bytes.
      aRange(start, end, anInteger(source.size, 'task.source.size', 0, Number.MAX_SAFE_INTEGER));
      const now = source.blob.size;
      if (now !== source.size) {
        throw new DOMException(
          `the Blob had ${source.size} bytes when the hash started and says ${now} now: its size (blob.size) cannot be trusted`,
          'NotReadableError',
        );
      }
      return blobStreamsAreByteStreams() ? blobStreamReader(source.blob, start, end) : blobReader(source.blob);
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
      throw new TypeError(
        `task.source.kind must be 'blob', 'bytes' or 'file', got ${JSON.stringify((source as { kind: unknown }).kind)}`,
      );
  }
}
