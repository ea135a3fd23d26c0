// Blake3Stream and VerifyStream against one-shot blake3() over the same bytes: a stream of
// 64 KiB chunks, as fetch bodies and Blob.stream() deliver them. Self-contained, so the same
// function runs in Node and, serialised, in a browser page.

export type StreamBenchResult = { case: string; mbps: number[] }[];

/** Measures in whatever realm it runs; `libs` are the loaded @blake3-web/core and /stream. */
export async function measureStreams(
  libs: { core: typeof import('@blake3-web/core'); stream: typeof import('@blake3-web/stream') },
  opts: {
    totalBytes: number;
    chunkBytes: number;
    rounds: number;
    /** Awaited between cases: a page passes a macrotask, since a whole case can run on microtasks alone. */
    pause?: () => Promise<void>;
    /** After each round; round -1 is the untimed one that checks every case. */
    onRound?: (round: number) => void;
  },
): Promise<StreamBenchResult> {
  const { core, stream } = libs;
  const { totalBytes, chunkBytes, rounds } = opts;
  const data = new Uint8Array(totalBytes);
  for (let i = 0; i < totalBytes; i += 4096) data[i] = i % 251;
  const expected = core.bytesToHex(core.blake3(data));
  const source = (bytes: Uint8Array = data, size = chunkBytes) => {
    let off = 0;
    return new ReadableStream<Uint8Array>(
      {
        pull(c) {
          if (off >= bytes.length) c.close();
          else (c.enqueue(bytes.subarray(off, off + size)), (off += size));
        },
      },
      { highWaterMark: 0 },
    );
  };
  // Bao: the same content as a combined encoding, and as content beside its outboard; in chunks
  // of 1 KiB (the Bao 0.13 format) and in groups of 16 KiB (chunkGroupLog 4).
  const combined = stream.baoEncode(data).encoded;
  const outboard = stream.baoEncode(data, { outboard: true }).encoded;
  const grouped = { chunkGroupLog: 4 };
  const combined4 = stream.baoEncode(data, grouped).encoded;
  const outboard4 = stream.baoEncode(data, { ...grouped, outboard: true }).encoded;
  const MiB = 1 << 20;
  /** Reads to the end; a verifying stream that released anything but the whole content fails the case. */
  const drain = async (r: ReadableStream<Uint8Array>) => {
    const reader = r.getReader();
    let n = 0;
    for (let c = await reader.read(); !c.done; c = await reader.read()) n += c.value.length;
    return n;
  };
  /** The same with a BYOB reader that brings one reused buffer of 1 MiB (no fresh memory per read). */
  const drainByob = async (r: ReadableStream<Uint8Array>) => {
    const reader = r.getReader({ mode: 'byob' });
    let view = new Uint8Array(MiB);
    let n = 0;
    for (let c = await reader.read(view); !c.done; c = await reader.read(view)) {
      n += c.value.length;
      view = new Uint8Array(c.value.buffer);
    }
    return n;
  };
  const released = (n: number) => (n === totalBytes ? expected : `${n} bytes released`);
  /** The Bao cases: each the verified stream of one encoding, read by both kinds of reader below. */
  const verify = (bytes: Uint8Array, size: number, opts?: import('@blake3-web/stream').BaoVerifyOpts) =>
    source(bytes, size).pipeThrough(new stream.BaoVerifyStream(expected, opts));
  const bao: Record<string, () => ReadableStream<Uint8Array>> = {
    'BaoVerifyStream, combined': () => verify(combined, chunkBytes),
    'BaoVerifyStream, outboard': () => verify(data, chunkBytes, { outboard }),
    'BaoVerifyStream, combined, 1 MiB chunks': () => verify(combined, MiB),
    'BaoVerifyStream, outboard, 1 MiB chunks': () => verify(data, MiB, { outboard }),
    'BaoVerifyStream, combined, chunkGroupLog 4': () => verify(combined4, chunkBytes, grouped),
    'BaoVerifyStream, outboard, chunkGroupLog 4': () => verify(data, chunkBytes, { ...grouped, outboard: outboard4 }),
  };
  const cases: Record<string, () => Promise<string>> = {
    'one-shot blake3()': async () => core.bytesToHex(core.blake3(data)),
    Blake3Stream: async () => {
      const s = new stream.Blake3Stream();
      await drain(source().pipeThrough(s));
      return core.bytesToHex(await s.digest);
    },
    VerifyStream: async () => {
      await drain(source().pipeThrough(new stream.VerifyStream(expected)));
      return expected;
    },
    'hashStream()': async () => core.bytesToHex(await stream.hashStream(source())),
    ...Object.fromEntries(
      Object.entries(bao).map(([name, verified]) => [name, async () => released(await drain(verified()))]),
    ),
    // The same with a reader that brings its own buffer: verified bytes are copied into it.
    ...Object.fromEntries(
      Object.entries(bao).map(([name, verified]) => [
        `${name}, BYOB reader`,
        async () => released(await drainByob(verified())),
      ]),
    ),
    // The floor under any pass-through: the same pipeline with a transform that only forwards.
    'TransformStream, no hashing': async () => {
      await drain(
        source().pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ transform: (c, ctl) => ctl.enqueue(c) })),
      );
      return expected;
    },
    // The floor under a pass-through that hands the reader its own copy of each chunk, as the
    // streams do so that a writer reusing its buffer cannot change what was hashed.
    'TransformStream, copying, no hashing': async () => {
      await drain(
        source().pipeThrough(
          new TransformStream<Uint8Array, Uint8Array>({ transform: (c, ctl) => ctl.enqueue(c.slice()) }),
        ),
      );
      return expected;
    },
  };
  // Engines without readable byte streams (WebKitGTK 2.50) have no BYOB readers: those rows are left out.
  let byob = true;
  try {
    new ReadableStream({ type: 'bytes' }).getReader({ mode: 'byob' }).releaseLock();
  } catch {
    byob = false;
  }
  const names = Object.keys(cases).filter((name) => byob || !name.endsWith('BYOB reader'));
  const out: StreamBenchResult = names.map((n) => ({ case: n, mbps: [] }));
  for (let round = -1; round < rounds; round++) {
    // Round -1 warms up and checks every case's answer; later rounds rotate the order.
    for (let k = 0; k < names.length; k++) {
      const i = (k + Math.max(round, 0)) % names.length;
      const t = performance.now();
      const hex = await cases[names[i]]();
      const ms = performance.now() - t;
      if (hex !== expected) throw new Error(`${names[i]} gave ${hex}, expected ${expected}`);
      if (round >= 0) out[i].mbps.push(totalBytes / 1e3 / ms);
      await opts.pause?.();
    }
    opts.onRound?.(round);
  }
  return out;
}
