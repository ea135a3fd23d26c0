import type { Random } from './random.ts';

/** `data` cut at random points into a stream, with empty chunks and views at odd offsets of their buffers. */
export function chunkedStream(rng: Random, data: Uint8Array, maxChunk: number): ReadableStream<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < data.length;) {
    const n = rng.int(0, maxChunk);
    const pad = rng.int(0, 3);
    const buf = new Uint8Array(n + pad);
    buf.set(data.subarray(i, i + n), pad);
    chunks.push(buf.subarray(pad, pad + Math.min(n, data.length - i)));
    i += n;
  }
  let k = 0;
  return new ReadableStream({ pull: (c) => (k < chunks.length ? c.enqueue(chunks[k++]) : c.close()) });
}
