/**
 * Reads a body to its end, handing each chunk to `take` (which may throw to stop). A chunk that
 * is not a Uint8Array is a TypeError; on any error the body is cancelled with it, so its source
 * stops, and the error is rethrown.
 */
export async function readChunks(body: ReadableStream<Uint8Array>, take: (chunk: Uint8Array) => void): Promise<void> {
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      if (!(value instanceof Uint8Array))
        throw new TypeError(`the response body gave a chunk that is not a Uint8Array: ${typeof value}`);
      take(value);
    }
  } catch (err) {
    await reader.cancel(err).catch(() => {});
    throw err;
  } finally {
    reader.releaseLock();
  }
}
