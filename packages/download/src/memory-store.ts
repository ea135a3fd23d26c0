/**
 * A store in memory: what `download()` uses without `store`. Nothing survives the page or the
 * process, so nothing resumes; the bytes are held once, in the Blob's parts.
 * @module
 */
import { anumber, describe } from '@blake3-web/core/_assert';
import { DownloadQuotaError } from './errors.js';
import { listed } from './_record.js';
import type { ContentShape, DownloadStore, GroupRun, StoredContent, StoredDownloadInfo } from './store.js';

type Entry = {
  shape: ContentShape;
  parts: Map<number, Uint8Array<ArrayBuffer>>;
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
  const empty = (e: Entry | undefined) => {
    if (e) for (const p of e.parts.values()) held -= p.length;
  };
  return {
    async open(root: string, shape: ContentShape): Promise<StoredContent> {
      let entry = entries.get(root);
      if (!entry || entry.shape.size !== shape.size || entry.shape.chunkGroupLog !== shape.chunkGroupLog) {
        empty(entry);
        entry = { shape: { size: shape.size, chunkGroupLog: shape.chunkGroupLog }, parts: new Map(), record: [] };
        entries.set(root, entry);
      }
      const e = entry;
      return {
        recorded: e.record.slice(),
        readOutboard: async () => e.outboard,
        writeOutboard: async (outboard) => {
          e.outboard = outboard.slice();
        },
        async write(offset, bytes) {
          const before = e.parts.get(offset)?.length ?? 0;
          if (held - before + bytes.length > maxBytes)
            throw new DownloadQuotaError(`the memory store holds at most ${maxBytes} bytes`);
          e.parts.set(offset, bytes.slice());
          held += bytes.length - before;
        },
        async commit(runs) {
          e.record.push(...runs);
        },
        async rewriteRecord(runs) {
          e.record = runs.slice();
        },
        async read(offset, length) {
          return readParts(e.parts, offset, length);
        },
        async blob() {
          // Each group is written once, so the parts in offset order are the content.
          return new Blob([...e.parts].sort((a, b) => a[0] - b[0]).map(([, part]) => part));
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
}

/** Bytes [offset, offset + length) from parts keyed by their offset (written in whole groups). */
function readParts(parts: Map<number, Uint8Array>, offset: number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (const [at, part] of parts) {
    const from = Math.max(at, offset);
    const to = Math.min(at + part.length, offset + length);
    if (from < to) out.set(part.subarray(from - at, to - at), from - offset);
  }
  return out;
}
