// A read-only worker for the benchmark page: reads the byte ranges it is sent the way the pool's
// workers do (one byte stream per range into a reused 1 MiB buffer where Blob streams take BYOB
// readers, else 8 MiB slices) and answers how many bytes arrived. No hashing: the read ceiling.

type ReadRequest = { id: number; blob: Blob; start: number; end: number };

const MiB = 1024 * 1024;

function byteStreams(): boolean {
  try {
    new Blob([]).stream().getReader({ mode: 'byob' }).releaseLock();
    return true;
  } catch {
    return false;
  }
}
const byob = byteStreams();

async function readRange(blob: Blob, start: number, end: number): Promise<number> {
  let n = 0;
  if (!byob) {
    for (let p = start; p < end; p += 8 * MiB)
      n += (await blob.slice(p, Math.min(end, p + 8 * MiB)).arrayBuffer()).byteLength;
    return n;
  }
  const reader = blob.slice(start, end).stream().getReader({ mode: 'byob' });
  let buffer = new ArrayBuffer(MiB);
  for (;;) {
    const { done, value } = await reader.read(new Uint8Array(buffer));
    if (done) return n;
    n += value.length;
    buffer = value.buffer as ArrayBuffer;
  }
}

onmessage = async (e: MessageEvent<ReadRequest>) => {
  const { id, blob, start, end } = e.data;
  try {
    postMessage({ id, bytes: await readRange(blob, start, end) });
  } catch (err) {
    // Name and message apart, so the page rebuilds the engine's error as it was.
    const e = err instanceof Error || err instanceof DOMException ? err : new Error(String(err));
    postMessage({ id, error: { name: e.name, message: e.message } });
  }
};
postMessage({ ready: true });
