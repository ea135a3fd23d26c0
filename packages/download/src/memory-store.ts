/**
 * A store in memory: what `download()` uses without `store`. Nothing survives the page or the
 * process, so nothing resumes.
 *
 * The content is kept in slabs of `SLAB_BYTES`: a slab's writes are copied into one buffer, and
 * once they cover it the slab becomes a Blob (one copy, into the engine's blob storage) and the
 * buffer is used for the next slab. The file's Blob is then made of the slabs' Blobs, which
 * engines reference rather than copy. Making it from the written bytes at the end instead copied
 * the whole content after its last byte arrived: 250-690 ms for 256 MiB in Firefox, 570 in
 * Chromium, against 2-3 ms per 2 MiB slab made while the network is what the download waits for.
 * A Blob per write (256 KiB) cost more than the copy it saved (0.69 to 0.50 of unverified in
 * Firefox, at load 19).
 * @module
 */
import { anumber, describe } from '@blake3-web/core/_assert';
import { DownloadQuotaError } from './errors.js';
import { listed } from './_record.js';
import type { ContentShape, DownloadStore, GroupRun, StoredContent, StoredDownloadInfo } from './store.js';

/** Content bytes per slab: the default range, so a range fills one slab and seals it as it ends. */
export const SLAB_BYTES: number = 2 << 20;
/** Slab buffers kept free for the next slabs, across the store's downloads. */
const FREE_BUFFERS = 4;

/** A slab: written into `buffer` until its bytes are all there, then a Blob. */
type Slab = {
  buffer?: Uint8Array<ArrayBuffer>;
  /** The slab's bytes written so far, as sorted disjoint [start, end) offsets within the slab. */
  written: [number, number][];
  blob?: Blob;
};

type Entry = {
  shape: ContentShape;
  slabs: Map<number, Slab>;
  /** Content bytes written, each counted once. */
  held: number;
  record: GroupRun[];
  outboard?: Uint8Array;
};

/** A store that keeps downloads in this realm's memory, at most `maxBytes` of content in all. */
export function memoryStore(opts: { maxBytes?: number } = {}): DownloadStore {
  if (typeof opts !== 'object' || opts === null) throw new TypeError(`opts must be an object, got ${describe(opts)}`);
  const maxBytes = opts.maxBytes === undefined ? Number.MAX_SAFE_INTEGER : anumber(opts.maxBytes, 'opts.maxBytes');
  const entries = new Map<string, Entry>();
  /** Content bytes held by every entry. */
  let held = 0;
  const free: Uint8Array<ArrayBuffer>[] = [];
  const empty = (e: Entry | undefined) => {
    if (e) held -= e.held;
  };
  return {
    async open(root: string, shape: ContentShape): Promise<StoredContent> {
      let entry = entries.get(root);
      if (!entry || entry.shape.size !== shape.size || entry.shape.chunkGroupLog !== shape.chunkGroupLog) {
        empty(entry);
        entry = {
          shape: { size: shape.size, chunkGroupLog: shape.chunkGroupLog },
          slabs: new Map(),
          held: 0,
          record: [],
        };
        entries.set(root, entry);
      }
      const e = entry;
      const slabLen = (index: number) => Math.min(SLAB_BYTES, e.shape.size - index * SLAB_BYTES);
      return {
        recorded: e.record.slice(),
        readOutboard: async () => e.outboard,
        writeOutboard: async (outboard) => {
          e.outboard = outboard.slice();
        },
        async write(offset, bytes) {
          if (!Number.isSafeInteger(offset) || offset < 0 || offset + bytes.length > e.shape.size)
            throw new RangeError(`write of ${bytes.length} bytes at ${offset}: the content has ${e.shape.size}`);
          const pieces = slabPieces(offset, bytes.length);
          // A slab written again after it became a Blob (no download does this) is read back
          // first; each is checked again after the wait, as another write may have run meanwhile.
          for (;;) {
            const sealed = pieces.map(([index]) => e.slabs.get(index)).find((s) => s?.blob);
            if (!sealed) break;
            const blob = sealed.blob!;
            const back = new Uint8Array(await blob.arrayBuffer());
            if (sealed.blob !== blob) continue;
            sealed.buffer = takeBuffer();
            sealed.buffer.set(back);
            sealed.blob = undefined;
          }
          const added = pieces.reduce(
            (n, [index, at, len]) => n + len - covered(e.slabs.get(index)?.written ?? [], at, at + len),
            0,
          );
          if (held + added > maxBytes) throw new DownloadQuotaError(`the memory store holds at most ${maxBytes} bytes`);
          for (const [index, at, len, from] of pieces) {
            let slab = e.slabs.get(index);
            if (!slab) e.slabs.set(index, (slab = { written: [] }));
            slab.buffer ??= takeBuffer();
            slab.buffer.set(bytes.subarray(from, from + len), at);
            slab.written = addRun(slab.written, at, at + len);
            const [only] = slab.written;
            if (slab.written.length === 1 && only[0] === 0 && only[1] === slabLen(index)) {
              slab.blob = new Blob([slab.buffer.subarray(0, only[1])]);
              giveBuffer(slab.buffer);
              slab.buffer = undefined;
            }
          }
          e.held += added;
          held += added;
        },
        async commit(runs) {
          e.record.push(...runs);
        },
        async rewriteRecord(runs) {
          e.record = runs.slice();
        },
        async read(offset, length) {
          const out = new Uint8Array(length);
          for (const [index, at, len, to] of slabPieces(offset, length)) {
            const slab = e.slabs.get(index);
            if (slab?.blob) out.set(new Uint8Array(await slab.blob.slice(at, at + len).arrayBuffer()), to);
            else if (slab?.buffer)
              for (const [a, b] of slab.written) {
                const from = Math.max(a, at);
                const end = Math.min(b, at + len);
                if (from < end) out.set(slab.buffer.subarray(from, end), to + from - at);
              }
          }
          return out;
        },
        async blob() {
          // The written bytes in offset order: every slab's Blob once the content is whole.
          const parts: BlobPart[] = [];
          for (const [, slab] of [...e.slabs].sort((a, b) => a[0] - b[0])) {
            if (slab.blob) parts.push(slab.blob);
            else if (slab.buffer) for (const [a, b] of slab.written) parts.push(slab.buffer.slice(a, b));
          }
          return new Blob(parts);
        },
        async close() {},
      };
    },
    async list(): Promise<StoredDownloadInfo[]> {
      return [...entries].map(([root, e]) => listed(root, e.shape, e.record));
    },
    async remove(root: string): Promise<boolean> {
      empty(entries.get(root));
      return entries.delete(root);
    },
  };

  function takeBuffer(): Uint8Array<ArrayBuffer> {
    return free.pop() ?? new Uint8Array(SLAB_BYTES);
  }

  /** A slab's buffer, once its Blob holds a copy of it. */
  function giveBuffer(buffer: Uint8Array<ArrayBuffer>): void {
    if (free.length < FREE_BUFFERS) free.push(buffer);
  }
}

/** Content bytes [offset, offset + length) as [slab, offset in the slab, length, offset in the bytes]. */
function slabPieces(offset: number, length: number): [number, number, number, number][] {
  const pieces: [number, number, number, number][] = [];
  for (let at = offset; at < offset + length;) {
    const index = Math.floor(at / SLAB_BYTES);
    const within = at - index * SLAB_BYTES;
    const len = Math.min(SLAB_BYTES - within, offset + length - at);
    pieces.push([index, within, len, at - offset]);
    at += len;
  }
  return pieces;
}

/** Bytes of [start, end) that `runs` (sorted, disjoint) already cover. */
function covered(runs: readonly [number, number][], start: number, end: number): number {
  let n = 0;
  for (const [a, b] of runs) n += Math.max(0, Math.min(b, end) - Math.max(a, start));
  return n;
}

/** `runs` (sorted, disjoint) with [start, end) added, joined where they touch. */
function addRun(runs: readonly [number, number][], start: number, end: number): [number, number][] {
  const out: [number, number][] = [];
  let s = start;
  let t = end;
  for (const [a, b] of runs) {
    if (b < s || a > t) out.push([a, b]);
    else {
      s = Math.min(s, a);
      t = Math.max(t, b);
    }
  }
  out.push([s, t]);
  return out.sort((x, y) => x[0] - y[0]);
}
