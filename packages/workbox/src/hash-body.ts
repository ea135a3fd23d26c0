import { blake3 } from '@blake3-web/core';
import { readChunks } from './read-chunks.js';

/**
 * The BLAKE3 (`dkLen` bytes) of a whole body, read as it streams, and the body itself as a Blob
 * when it has at most `keepBytes` bytes (else undefined: what was kept is dropped as soon as the
 * body outgrows it). Each chunk is copied before it is hashed when it may be kept, so the bytes
 * kept are the bytes hashed even if the source reuses its buffers.
 */
export async function hashBody(
  body: ReadableStream<Uint8Array> | null,
  dkLen: number,
  keepBytes: number,
): Promise<{ digest: Uint8Array; kept: Blob | undefined }> {
  const hasher = blake3.create({ dkLen });
  let parts: Uint8Array[] | undefined = [];
  let total = 0;
  if (body !== null) {
    await readChunks(body, (value) => {
      total += value.length;
      if (parts && total > keepBytes) parts = undefined;
      const chunk = parts ? value.slice() : value;
      hasher.update(chunk);
      parts?.push(chunk);
    });
  }
  return { digest: hasher.digest(), kept: parts && new Blob(parts as BlobPart[]) };
}
