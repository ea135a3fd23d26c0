/**
 * A `DownloadStore` in a directory, for Node, Deno and Bun: per root (lowercase hex) the content
 * in `<root>.data`, the record of verified groups in `<root>.record`, the outboard in
 * `<root>.obao`. A commit syncs the data file to disk before it appends to the record, so a crash
 * or a kill at any instant leaves no group recorded whose bytes are not on disk. One download of
 * a root at a time per directory: two processes writing the same root are not coordinated.
 * @module
 */
import * as fs from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hexToBytes } from '@blake3-web/core';
import { DownloadQuotaError } from './errors.js';
import {
  decodeRecord,
  encodeRecordEntries,
  encodeRecordHeader,
  groupCount,
  listedRecord,
  recordFileRoot,
  ROOT_HEX,
} from './_record.js';
import type { ContentShape, DownloadStore, GroupRun, StoredContent, StoredDownloadInfo } from './store.js';

/** A store that keeps downloads as files in `directory` (created when first needed). */
export function directoryStore(directory: string | URL): DownloadStore {
  if (typeof directory !== 'string' && !(directory instanceof URL))
    throw new TypeError(`directory must be a path string or a file: URL, got ${typeof directory}`);
  const dir = directory instanceof URL ? fileURLToPath(directory) : directory;
  if (dir === '') throw new TypeError('directory must not be empty');
  const path = (root: string, ext: string) => join(dir, `${root}.${ext}`);
  return {
    async open(root: string, shape: ContentShape): Promise<StoredContent> {
      aRoot(root);
      await mkdir(dir, { recursive: true });
      return openStored(root, shape, path(root, 'data'), path(root, 'record'), path(root, 'obao'));
    },
    async list(): Promise<StoredDownloadInfo[]> {
      let names: string[];
      try {
        names = await readdir(dir);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw err;
      }
      const out: StoredDownloadInfo[] = [];
      for (const name of names.sort()) {
        const root = recordFileRoot(name);
        if (root === undefined) continue;
        const bytes = await readFile(join(dir, name)).catch(() => undefined);
        const entry = bytes && listedRecord(root, bytes);
        if (entry) out.push(entry);
      }
      return out;
    },
    async remove(root: string): Promise<boolean> {
      aRoot(root);
      let found = false;
      // The record goes first: without it nothing is claimed, whatever else remains.
      for (const ext of ['record', 'data', 'obao', 'record.tmp']) {
        try {
          await rm(path(root, ext));
          found = true;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        }
      }
      return found;
    },
  };
}

function aRoot(root: unknown): asserts root is string {
  if (typeof root !== 'string' || !ROOT_HEX.test(root))
    throw new TypeError(
      `root must be 64 lowercase hex digits, got ${typeof root === 'string' ? JSON.stringify(root) : typeof root}`,
    );
}

async function openStored(
  rootHex: string,
  shape: ContentShape,
  dataPath: string,
  recordPath: string,
  outboardPath: string,
): Promise<StoredContent> {
  const root = hexToBytes(rootHex);
  const existing = await readFile(recordPath).catch(() => undefined);
  const decoded = existing && decodeRecord(existing, root, shape);
  let recorded: GroupRun[] = [];
  if (decoded) {
    recorded = decoded.runs;
    // A torn last entry is cut off, so that the next append starts at an entry boundary.
    if (decoded.soundBytes < existing.length) await replaceFile(recordPath, existing.subarray(0, decoded.soundBytes));
  } else {
    // Another download's (or a damaged) record: an empty one replaces it before the data goes.
    await replaceFile(recordPath, encodeRecordHeader(root, shape));
    await rm(dataPath, { force: true });
    await rm(outboardPath, { force: true });
  }
  const data = await quota(() => open(dataPath, 'r+').catch(() => open(dataPath, 'w+')));
  let record: FileHandle = await open(recordPath, 'r+');
  let recordEnd = (await record.stat()).size;
  /** Commits and rewrites, one after another: each appends at the end the one before left. */
  let chain: Promise<void> = Promise.resolve();
  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const run = chain.then(task);
    chain = run.then(
      () => {},
      () => {},
    );
    return run;
  };
  const groups = groupCount(shape);
  return {
    recorded,
    async readOutboard() {
      return readFile(outboardPath).then(
        (b) => new Uint8Array(b.buffer, b.byteOffset, b.length),
        () => undefined,
      );
    },
    async writeOutboard(outboard) {
      await replaceFile(outboardPath, outboard);
    },
    async write(offset, bytes) {
      await quota(async () => {
        let done = 0;
        while (done < bytes.length) {
          const { bytesWritten } = await data.write(bytes, done, bytes.length - done, offset + done);
          done += bytesWritten;
        }
      });
    },
    commit(runs) {
      for (const r of runs)
        if (r.count < 1 || r.first + r.count > groups) throw new RangeError(`runs hold groups past ${groups}`);
      return serial(() =>
        quota(async () => {
          // The bytes reach the disk before the record says they are there.
          await data.datasync();
          const entries = encodeRecordEntries(root, runs);
          await record.write(entries, 0, entries.length, recordEnd);
          recordEnd += entries.length;
        }),
      );
    },
    rewriteRecord(runs) {
      return serial(async () => {
        const header = encodeRecordHeader(root, shape);
        const entries = encodeRecordEntries(root, runs);
        const bytes = new Uint8Array(header.length + entries.length);
        bytes.set(header);
        bytes.set(entries, header.length);
        await record.close();
        await replaceFile(recordPath, bytes);
        record = await open(recordPath, 'r+');
        recordEnd = bytes.length;
      });
    },
    async read(offset, length) {
      const out = new Uint8Array(length);
      let done = 0;
      while (done < length) {
        const { bytesRead } = await data.read(out, done, length - done, offset + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
      return done === length ? out : out.subarray(0, done);
    },
    async blob() {
      // Node 20 and Bun read a file-backed Blob lazily; elsewhere the bytes are read in.
      const openAsBlob = (fs as { openAsBlob?: (p: string) => Promise<Blob> }).openAsBlob;
      if (typeof openAsBlob === 'function') return openAsBlob(dataPath);
      return new Blob([await readFile(dataPath)]);
    },
    async close() {
      await chain;
      await Promise.allSettled([data.close(), record.close()]);
    },
  };
}

/** Writes a whole file under another name, syncs it, and renames it over the old one. */
async function replaceFile(path: string, bytes: Uint8Array): Promise<void> {
  await quota(async () => {
    const tmp = `${path}.tmp`;
    const h = await open(tmp, 'w');
    try {
      await h.writeFile(bytes);
      await h.datasync();
    } finally {
      await h.close();
    }
    await rename(tmp, path);
  });
}

/** Runs `task`; a full disk or an exhausted quota becomes a DownloadQuotaError. */
async function quota<T>(task: () => Promise<T>): Promise<T> {
  try {
    return await task();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'ENOSPC' || code === 'EDQUOT' || code === 'EFBIG')
      throw new DownloadQuotaError(`the store ran out of room (${code})`, { cause: err });
    throw err;
  }
}
