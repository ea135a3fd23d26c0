// Reading a byte range of a file in Node, on whichever thread needs it.
import { open } from 'node:fs/promises';
import type { ReadFileRange } from './_hash-range.js';

/** Reads [start, end) of a file, failing with a NotReadableError if it is not the file the hash started on. */
export const readFileRange: ReadFileRange = async (file, start, end) => {
  const handle = await open(file.path, 'r');
  try {
    const bytes = new Uint8Array(end - start);
    let done = 0;
    while (done < bytes.length) {
      const { bytesRead } = await handle.read(bytes, done, bytes.length - done, start + done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    // Checked after reading: a file rewritten before or during the read shows a new size or
    // mtime, and those bytes must not make it into a hash.
    const now = await handle.stat();
    if (done !== bytes.length || now.size !== file.size || now.mtimeMs !== file.mtimeMs) {
      throw new DOMException(`${file.path} changed while it was being hashed (it had ${file.size} bytes, now ${now.size})`, 'NotReadableError');
    }
    return bytes;
  } finally {
    await handle.close();
  }
};
