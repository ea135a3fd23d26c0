// Standard output and error written with blocking calls on the descriptors: output of any length
// leaves in bounded pieces as it is made (no stream buffering in memory), and errors stay in
// order with output, as b3sum's line-buffered stdout and unbuffered stderr keep them.
import { writeSync } from 'node:fs';

/** Output collects up to this much before one write(2); 13 million short `OK` lines stay cheap. */
const FLUSH_BYTES = 64 << 10;

export type Writer = {
  out(data: string | Uint8Array): void;
  err(text: string): void;
  flush(): void;
};

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Writes all of `data` to `fd`, waiting out EAGAIN on a descriptor someone made non-blocking. */
function writeAll(fd: number, data: Uint8Array): void {
  for (let off = 0; off < data.length;) {
    try {
      off += writeSync(fd, data, off, data.length - off);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
      Atomics.wait(sleeper, 0, 0, 1);
    }
  }
}

export function fdWriter(outFd = 1, errFd = 2): Writer {
  let parts: Uint8Array[] = [];
  let size = 0;
  const flush = () => {
    if (size === 0) return;
    const data = parts.length === 1 ? parts[0] : Buffer.concat(parts, size);
    parts = [];
    size = 0;
    writeAll(outFd, data);
  };
  return {
    out(data) {
      const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      // A large piece is written as it is; small ones are copied, since callers reuse buffers.
      if (bytes.length >= FLUSH_BYTES) {
        flush();
        writeAll(outFd, bytes);
        return;
      }
      parts.push(typeof data === 'string' ? bytes : bytes.slice());
      size += bytes.length;
      if (size >= FLUSH_BYTES) flush();
    },
    err(text) {
      flush();
      writeAll(errFd, Buffer.from(text, 'utf8'));
    },
    flush,
  };
}
