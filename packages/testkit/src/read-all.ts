/**
 * Reads a stream to its end or its error with a plain reader loop (the only way every engine
 * offers), keeping what arrived before an error. `error` is present only when reading failed.
 */
export async function readAll(readable: ReadableStream<Uint8Array>): Promise<{ bytes: Uint8Array; error?: unknown }> {
  const reader = readable.getReader();
  const parts: Uint8Array[] = [];
  const joined = () => {
    const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) (bytes.set(p, at), (at += p.length));
    return bytes;
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
    }
  } catch (error) {
    return { bytes: joined(), error };
  }
  return { bytes: joined() };
}
