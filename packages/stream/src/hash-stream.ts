import { blake3, type Blake3Opts } from '@blake3-web/core';
import { aChunk, describe } from './_assert.js';

/**
 * The BLAKE3 of everything a `ReadableStream` gives (a `fetch` body, `Blob.stream()`, Node's
 * `Readable.toWeb()`), read to its end. A plain reader loop, which every engine supports.
 */
export async function hashStream(readable: ReadableStream<Uint8Array>, opts?: Blake3Opts): Promise<Uint8Array> {
  if (!(readable instanceof ReadableStream))
    throw new TypeError(`readable must be a ReadableStream, got ${describe(readable)}`);
  const hasher = blake3.create(opts);
  const reader = readable.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return hasher.digest();
      hasher.update(aChunk(value));
    }
  } catch (err) {
    await reader.cancel(err).catch(() => {});
    throw err;
  } finally {
    reader.releaseLock();
  }
}
