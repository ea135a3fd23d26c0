import { blake3, KEY_LEN, type Blake3Opts, type OutputReader } from '@blake3-web/core';
import { fstatSync, openSync, readSync } from 'node:fs';

/** Files at least this large go to the worker pool; below it, thread start-up costs more than it saves. */
export const POOL_MIN_BYTES: number = 16 << 20;
// 1 GiB on one thread: 1 MiB reads 1.03 s (60 MiB RSS), 4 MiB 0.87 s (64 MiB), 16 MiB 0.85 s (75 MiB).
const READ_BYTES = 4 << 20;
let readBuffer: Uint8Array | undefined;

/** Opens a file by its name's bytes (a name need not be UTF-8). */
export const openPath = (path: Uint8Array): number =>
  openSync(Buffer.from(path.buffer, path.byteOffset, path.length), 'r');

/** The size of an open regular file, or undefined for anything else (pipes, devices, directories). */
export function regularFileSize(fd: number): number | undefined {
  const info = fstatSync(fd);
  return info.isFile() ? info.size : undefined;
}

/**
 * The XOF reader of an open file read in 4 MiB pieces on this thread; memory stays flat. Blocking
 * reads: nothing else runs meanwhile, and a check of millions of small files costs a few
 * microseconds per file instead of a promise round trip per call.
 */
export function hashOpenFile(fd: number, mode: Blake3Opts): OutputReader {
  const hasher = blake3.create(mode);
  const buf = (readBuffer ??= new Uint8Array(READ_BYTES));
  for (;;) {
    const n = readSync(fd, buf, 0, buf.length, null);
    if (n === 0) return hasher.reader();
    hasher.update(buf.subarray(0, n));
  }
}

/** The XOF reader of everything on standard input. */
export async function hashStdin(mode: Blake3Opts): Promise<OutputReader> {
  const hasher = blake3.create(mode);
  for await (const chunk of process.stdin) hasher.update(chunk as Uint8Array);
  return hasher.reader();
}

/** Exactly KEY_LEN (32) key bytes from standard input, as b3sum's --keyed reads them (at most 33). */
export async function readKeyFromStdin(): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let n = 0;
  for await (const chunk of process.stdin) {
    parts.push(chunk as Uint8Array);
    n += (chunk as Uint8Array).length;
    if (n > KEY_LEN) throw new Error(`read more than ${KEY_LEN} key bytes from stdin`);
  }
  if (n < KEY_LEN) throw new Error(`expected ${KEY_LEN} key bytes from stdin, found ${n}`);
  return new Uint8Array(Buffer.concat(parts));
}
