/**
 * The worker behind `opfsStore()`: each download's files in the Origin Private File System,
 * written through synchronous access handles (a dedicated worker is the only place they
 * exist), which write in place and flush to disk on demand. Per root, in the store's directory:
 * `<root>.data` (the content at its offsets), `<root>.record` (the record of verified groups,
 * `_record.ts`), `<root>.obao` (the outboard). A commit flushes the data before it appends to
 * the record and flushes that, so a crash or a reload at any instant leaves no group recorded
 * whose bytes are not on disk. Importing this module serves requests on the worker's scope and
 * says so (OPFS_READY): that is its only effect.
 * @module
 */
import { hexToBytes } from '@blake3-web/core';
import {
  decodeRecord,
  encodeRecordEntries,
  encodeRecordHeader,
  groupCount,
  listedRecord,
  RECORD_HEADER_LEN,
  recordFileRoot,
  ROOT_HEX,
} from './_record.js';
import {
  OPFS_READY,
  type CrossedError,
  type OpfsCalls,
  type OpfsRequest,
  type OpfsResponse,
} from './_opfs-protocol.js';
import type { ContentShape, GroupRun, StoredDownloadInfo } from './store.js';

/** The part of FileSystemSyncAccessHandle used here (lib.dom of TS 5 has it only for workers). */
interface SyncHandle {
  read(buffer: Uint8Array, opts: { at: number }): number;
  write(buffer: Uint8Array, opts: { at: number }): number;
  truncate(size: number): void;
  getSize(): number;
  flush(): void;
  close(): void;
}
type FileHandle = FileSystemFileHandle & { createSyncAccessHandle(): Promise<SyncHandle> };

type Open = {
  root: string;
  rootBytes: Uint8Array;
  shape: ContentShape;
  dir: FileSystemDirectoryHandle;
  data: SyncHandle;
  record: SyncHandle;
  recordEnd: number;
  groups: number;
  /** Opens of this root not yet closed: two downloads of one root in a page share its files. */
  refs: number;
};

const opened = new Map<number, Open>();
const byRoot = new Map<string, Open>();
let nextId = 1;

async function directory(name: string): Promise<FileSystemDirectoryHandle> {
  let dir = await navigator.storage.getDirectory();
  for (const part of name.split('/').filter(Boolean)) dir = await dir.getDirectoryHandle(part, { create: true });
  return dir;
}

async function syncHandle(dir: FileSystemDirectoryHandle, name: string): Promise<SyncHandle> {
  const file = (await dir.getFileHandle(name, { create: true })) as FileHandle;
  if (typeof file.createSyncAccessHandle !== 'function')
    throw new TypeError('this engine has OPFS files without createSyncAccessHandle: use idbStore()');
  try {
    return await file.createSyncAccessHandle();
  } catch (err) {
    // Another tab (or another store of this page) holds the file.
    if ((err as DOMException)?.name === 'NoModificationAllowedError')
      throw new Error(`${name} is open in another download of the same root (another tab?)`, { cause: err });
    throw err;
  }
}

function writeAll(handle: SyncHandle, bytes: Uint8Array, at: number): void {
  for (let done = 0; done < bytes.length;) {
    const want = bytes.length - done;
    const n = handle.write(bytes.subarray(done), { at: at + done });
    // Chromium 156 does not throw when the origin's quota is full: write returns a file error
    // code as an unsigned count (2^32 - 8 measured), bytes it never wrote. Any count outside
    // 1..want is taken as that.
    if (!(n >= 1 && n <= want))
      throw new DOMException(
        `the file system took ${n === 0 ? 'no' : 'not all the'} bytes (write returned ${n})`,
        'QuotaExceededError',
      );
    done += n;
  }
}

function readAll(handle: SyncHandle, at: number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  let done = 0;
  while (done < length) {
    const n = handle.read(out.subarray(done), { at: at + done });
    if (n === 0) break;
    done += n;
  }
  return done === length ? out : out.slice(0, done);
}

function held(id: number): Open {
  const o = opened.get(id);
  if (!o) throw new Error(`download ${id} is not open in the OPFS worker (closed or removed)`);
  return o;
}

async function removeEntry(dir: FileSystemDirectoryHandle, name: string): Promise<boolean> {
  try {
    await dir.removeEntry(name);
    return true;
  } catch (err) {
    if ((err as DOMException)?.name === 'NotFoundError') return false;
    throw err;
  }
}

const calls: { [K in keyof OpfsCalls]: (...args: OpfsCalls[K][0]) => OpfsCalls[K][1] | Promise<OpfsCalls[K][1]> } = {
  async open(dirName, root, shape) {
    if (!ROOT_HEX.test(root)) throw new TypeError(`root must be 64 lowercase hex digits, got ${JSON.stringify(root)}`);
    const dir = await directory(dirName);
    const rootBytes = hexToBytes(root);
    const open = byRoot.get(root);
    if (open) {
      // Open already (another download of the same root, say a library's fetch beside the page's
      // own): the same files, the record as it is now.
      if (open.shape.size !== shape.size || open.shape.chunkGroupLog !== shape.chunkGroupLog)
        throw new Error(`the download of ${root} is open with another size or chunk group size`);
      const decoded = decodeRecord(readAll(open.record, 0, open.recordEnd), rootBytes, shape);
      open.refs++;
      const id = nextId++;
      opened.set(id, open);
      return { id, recorded: decoded?.runs ?? [] };
    }
    const record = await syncHandle(dir, `${root}.record`);
    let data: SyncHandle;
    try {
      data = await syncHandle(dir, `${root}.data`);
    } catch (err) {
      record.close();
      throw err;
    }
    try {
      const existing = readAll(record, 0, record.getSize());
      const decoded = decodeRecord(existing, rootBytes, shape);
      let recorded: GroupRun[] = [];
      if (decoded) {
        recorded = decoded.runs;
        // A torn last entry is cut off, so that the next append starts at an entry boundary.
        if (decoded.soundBytes < existing.length) (record.truncate(decoded.soundBytes), record.flush());
      } else {
        // Another download's, or a damaged, record: emptied first, so that it claims nothing
        // while the data goes; then the header of this one.
        record.truncate(0);
        record.flush();
        data.truncate(0);
        data.flush();
        await removeEntry(dir, `${root}.obao`);
        writeAll(record, encodeRecordHeader(rootBytes, shape), 0);
        record.flush();
      }
      const id = nextId++;
      const files: Open = {
        root,
        rootBytes,
        shape: { size: shape.size, chunkGroupLog: shape.chunkGroupLog },
        dir,
        data,
        record,
        recordEnd: record.getSize(),
        groups: groupCount(shape),
        refs: 1,
      };
      opened.set(id, files);
      byRoot.set(root, files);
      return { id, recorded };
    } catch (err) {
      data.close();
      record.close();
      throw err;
    }
  },
  write(id, offset, bytes) {
    writeAll(held(id).data, bytes, offset);
    return bytes;
  },
  commit(id, runs) {
    const o = held(id);
    for (const r of runs)
      if (!(r.count >= 1 && r.first >= 0 && r.first + r.count <= o.groups))
        throw new RangeError(`runs must hold groups below ${o.groups}, got ${r.first}+${r.count}`);
    // The bytes reach the disk before the record says they are there.
    o.data.flush();
    const entries = encodeRecordEntries(o.rootBytes, runs);
    writeAll(o.record, entries, o.recordEnd);
    o.record.flush();
    o.recordEnd += entries.length;
  },
  rewriteRecord(id, runs) {
    const o = held(id);
    // No rename for files behind sync access handles: the record is cut to its header first
    // (claiming nothing), then the runs appended. A crash between loses progress, never claims.
    o.record.truncate(RECORD_HEADER_LEN);
    o.record.flush();
    o.recordEnd = RECORD_HEADER_LEN;
    const entries = encodeRecordEntries(o.rootBytes, runs);
    writeAll(o.record, entries, o.recordEnd);
    o.record.flush();
    o.recordEnd += entries.length;
  },
  read(id, offset, length) {
    return readAll(held(id).data, offset, length);
  },
  async readOutboard(id) {
    const o = held(id);
    try {
      const file = await (await o.dir.getFileHandle(`${o.root}.obao`)).getFile();
      return new Uint8Array(await file.arrayBuffer());
    } catch (err) {
      if ((err as DOMException)?.name === 'NotFoundError') return undefined;
      throw err;
    }
  },
  async writeOutboard(id, outboard) {
    const o = held(id);
    const h = await syncHandle(o.dir, `${o.root}.obao`);
    try {
      h.truncate(0);
      writeAll(h, outboard, 0);
      h.flush();
    } finally {
      h.close();
    }
  },
  async blob(id) {
    const o = held(id);
    o.data.flush();
    return (await o.dir.getFileHandle(`${o.root}.data`)).getFile();
  },
  close(id) {
    const o = opened.get(id);
    if (!o) return;
    opened.delete(id);
    if (--o.refs > 0) return;
    byRoot.delete(o.root);
    try {
      o.data.flush();
      o.record.flush();
    } finally {
      o.data.close();
      o.record.close();
    }
  },
  async list(dirName) {
    const dir = await directory(dirName);
    const out: StoredDownloadInfo[] = [];
    const names: string[] = [];
    for await (const name of (dir as unknown as { keys(): AsyncIterable<string> }).keys()) names.push(name);
    for (const name of names.sort()) {
      const root = recordFileRoot(name);
      if (root === undefined) continue;
      const bytes = new Uint8Array(await (await (await dir.getFileHandle(name)).getFile()).arrayBuffer());
      const entry = listedRecord(root, bytes);
      if (entry) out.push(entry);
    }
    return out;
  },
  async probe(dirName) {
    // Rejects where OPFS is refused (Firefox's private windows: SecurityError) or where its files
    // have no sync access handles (Safari before 15.2).
    await directory(dirName);
    const handle = (globalThis as { FileSystemFileHandle?: { prototype: object } }).FileSystemFileHandle;
    if (!handle || typeof (handle.prototype as Partial<FileHandle>).createSyncAccessHandle !== 'function')
      throw new TypeError('this engine has OPFS files without createSyncAccessHandle');
  },
  async remove(dirName, root) {
    if (!ROOT_HEX.test(root)) throw new TypeError(`root must be 64 lowercase hex digits, got ${JSON.stringify(root)}`);
    const open = byRoot.get(root);
    if (open) {
      for (const [id, o] of opened) if (o === open) opened.delete(id);
      open.refs = 0;
      byRoot.delete(root);
      open.data.close();
      open.record.close();
    }
    const dir = await directory(dirName);
    let found = false;
    // The record goes first: without it nothing is claimed, whatever else remains.
    for (const ext of ['record', 'data', 'obao']) found = (await removeEntry(dir, `${root}.${ext}`)) || found;
    return found;
  },
};

function crossed(err: unknown): CrossedError {
  if (err instanceof Error || err instanceof DOMException)
    return { name: err.name, message: err.message, stack: (err as Error).stack };
  return { name: 'Error', message: String(err) };
}

// One request at a time, in the order they came: each file's writes and flushes stay ordered.
let queue: Promise<void> = Promise.resolve();
self.addEventListener('message', (e: MessageEvent<OpfsRequest>) => {
  const { seq, call, args } = e.data;
  queue = queue.then(async () => {
    let response: OpfsResponse;
    const transfer: Transferable[] = [];
    try {
      const value = await (calls[call] as (...a: unknown[]) => unknown)(...args);
      if (value instanceof Uint8Array) transfer.push(value.buffer);
      response = { seq, ok: true, value };
    } catch (err) {
      response = { seq, ok: false, error: crossed(err) };
    }
    self.postMessage(response, { transfer });
  });
});
self.postMessage(OPFS_READY);
