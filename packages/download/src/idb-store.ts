/**
 * A `DownloadStore` in IndexedDB, for engines without the Origin Private File System (WebKitGTK,
 * older browsers): what `browserStore()` falls back to. Each group is a Blob of its own under
 * `[root, group]` (bytes, not a Blob: WebKitGTK refuses to store Blobs in some sessions), the
 * record of verified groups and the outboard under the root. A group's bytes are written in a
 * transaction of their own, and a commit appends to the record only after every write before it
 * has completed, in a transaction with strict durability: IndexedDB commits transactions in order,
 * so no group is ever recorded whose bytes are not stored. Slower than OPFS (a transaction per
 * write, a record per group), but a download survives a reload here too.
 * @module
 */
import { DownloadQuotaError } from './errors.js';
import { groupCount, listed, ROOT_HEX } from './_record.js';
import type { ContentShape, DownloadStore, GroupRun, StoredContent, StoredDownloadInfo } from './store.js';

export type IdbStoreOpts = {
  /** The IndexedDB database (default `blake3-web-download`). */
  database?: string;
};

type RecordValue = { size: number; chunkGroupLog: number; runs: GroupRun[] };

const RECORDS = 'records';
const GROUPS = 'groups';
const OUTBOARDS = 'outboards';

/** A request's result, or its error (a full quota as the package's quota error). */
function done<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(storeError(request.error));
  });
}

/** Resolves once `tx` has committed; rejects if it aborted. */
function committed(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    // A failed request aborts its transaction (nothing here prevents that default): the
    // abort reports it.
    tx.onabort = () => reject(storeError(tx.error));
  });
}

function storeError(error: DOMException | null): Error {
  if (error?.name === 'QuotaExceededError')
    return new DownloadQuotaError(`the origin's storage quota is exhausted: ${error.message}`, { cause: error });
  return error ?? new Error('an IndexedDB transaction aborted');
}

function openDatabase(name: string): Promise<IDBDatabase> {
  const request = indexedDB.open(name, 1);
  request.onupgradeneeded = () => {
    const db = request.result;
    db.createObjectStore(RECORDS);
    db.createObjectStore(GROUPS);
    db.createObjectStore(OUTBOARDS);
  };
  return done(request);
}

const groupsOf = (root: string) => IDBKeyRange.bound([root, 0], [root, Infinity]);

function aRoot(root: unknown): asserts root is string {
  if (typeof root !== 'string' || !ROOT_HEX.test(root))
    throw new TypeError(
      `root must be 64 lowercase hex digits, got ${typeof root === 'string' ? JSON.stringify(root) : typeof root}`,
    );
}

/** A store in this origin's IndexedDB (see the module's comment). */
export function idbStore(opts: IdbStoreOpts = {}): DownloadStore {
  if (typeof opts !== 'object' || opts === null) throw new TypeError(`opts must be an object, got ${String(opts)}`);
  const name = opts.database ?? 'blake3-web-download';
  if (typeof name !== 'string' || name === '')
    throw new TypeError(`opts.database must be a non-empty string, got ${String(name)}`);
  let db: Promise<IDBDatabase> | undefined;
  const database = () => {
    if (typeof indexedDB === 'undefined') throw new TypeError('this realm has no IndexedDB: use memoryStore()');
    return (db ??= openDatabase(name));
  };

  return {
    async open(root: string, shape: ContentShape): Promise<StoredContent> {
      aRoot(root);
      const idb = await database();
      const groupBytes = 1024 * 2 ** shape.chunkGroupLog;
      const groups = groupCount(shape);
      let record = (await done(idb.transaction(RECORDS).objectStore(RECORDS).get(root))) as RecordValue | undefined;
      if (!record || record.size !== shape.size || record.chunkGroupLog !== shape.chunkGroupLog) {
        // Another shape's download (or none): its record, groups and outboard go in one transaction.
        record = { size: shape.size, chunkGroupLog: shape.chunkGroupLog, runs: [] };
        const tx = idb.transaction([RECORDS, GROUPS, OUTBOARDS], 'readwrite');
        tx.objectStore(RECORDS).put(record, root);
        tx.objectStore(GROUPS).delete(groupsOf(root));
        tx.objectStore(OUTBOARDS).delete(root);
        await committed(tx);
      }
      const recorded = record.runs.slice();
      /** Writes not yet known complete; a commit waits for them, and fails if one did. */
      const writes = new Set<Promise<void>>();
      let failed: { error: unknown } | undefined;

      const storeGroups = (offset: number, bytes: Uint8Array): Promise<void> => {
        if (offset % groupBytes !== 0 || (bytes.length % groupBytes !== 0 && offset + bytes.length !== shape.size))
          throw new RangeError(
            `writes must be whole groups of ${groupBytes} bytes (the last may end the content), got ${bytes.length} bytes at ${offset}`,
          );
        const tx = idb.transaction(GROUPS, 'readwrite');
        const store = tx.objectStore(GROUPS);
        for (let at = 0; at < bytes.length; at += groupBytes)
          store.put(bytes.slice(at, at + groupBytes), [root, (offset + at) / groupBytes]);
        return committed(tx);
      };

      return {
        recorded,
        async readOutboard() {
          const value = await done(idb.transaction(OUTBOARDS).objectStore(OUTBOARDS).get(root));
          return value instanceof Uint8Array ? value : undefined;
        },
        async writeOutboard(outboard) {
          const tx = idb.transaction(OUTBOARDS, 'readwrite');
          tx.objectStore(OUTBOARDS).put(outboard.slice(), root);
          await committed(tx);
        },
        write(offset, bytes) {
          const write = storeGroups(offset, bytes);
          writes.add(write);
          return write.then(
            () => void writes.delete(write),
            (error: unknown) => {
              writes.delete(write);
              failed ??= { error };
              throw error;
            },
          );
        },
        async commit(runs) {
          for (const r of runs)
            if (!(r.count >= 1 && r.first >= 0 && r.first + r.count <= groups))
              throw new RangeError(`runs must hold groups below ${groups}, got ${r.first}+${r.count}`);
          await Promise.allSettled([...writes]);
          if (failed) {
            const { error } = failed;
            failed = undefined;
            throw error;
          }
          const tx = idb.transaction(RECORDS, 'readwrite', { durability: 'strict' });
          const records = tx.objectStore(RECORDS);
          const current = (await done(records.get(root))) as RecordValue | undefined;
          if (!current) throw new Error(`the download of ${root} was removed while it was open`);
          current.runs.push(...runs.map((r) => ({ first: r.first, count: r.count })));
          records.put(current, root);
          await committed(tx);
        },
        async rewriteRecord(runs) {
          await Promise.allSettled([...writes]);
          const tx = idb.transaction(RECORDS, 'readwrite', { durability: 'strict' });
          tx.objectStore(RECORDS).put(
            {
              size: shape.size,
              chunkGroupLog: shape.chunkGroupLog,
              runs: runs.map((r) => ({ first: r.first, count: r.count })),
            },
            root,
          );
          await committed(tx);
        },
        async read(offset, length) {
          const out = new Uint8Array(length);
          if (length === 0) return out;
          const first = Math.floor(offset / groupBytes);
          const last = Math.floor((offset + length - 1) / groupBytes);
          const store = idb.transaction(GROUPS).objectStore(GROUPS);
          const [keys, blobs] = await Promise.all([
            done(store.getAllKeys(IDBKeyRange.bound([root, first], [root, last]))),
            done(store.getAll(IDBKeyRange.bound([root, first], [root, last]))),
          ]);
          let end = 0;
          for (let i = 0; i < keys.length; i++) {
            const at = ((keys[i] as [string, number])[1] as number) * groupBytes;
            const bytes = blobs[i] as Uint8Array;
            const from = Math.max(at, offset);
            const to = Math.min(at + bytes.length, offset + length);
            if (from < to) out.set(bytes.subarray(from - at, to - at), from - offset);
            end = Math.max(end, to - offset);
          }
          return end === length ? out : out.subarray(0, end);
        },
        async blob() {
          // The groups in order, 4 MiB at a time, into a Blob (which engines keep on disk once
          // large).
          const parts: Blob[] = [];
          const batch = Math.max(1, (4 << 20) / groupBytes);
          for (let from = 0; from < groups; from += batch) {
            const range = IDBKeyRange.bound([root, from], [root, Math.min(groups, from + batch) - 1]);
            const values = (await done(idb.transaction(GROUPS).objectStore(GROUPS).getAll(range))) as Uint8Array[];
            parts.push(new Blob(values as Uint8Array<ArrayBuffer>[]));
          }
          return new Blob(parts);
        },
        async close() {
          await Promise.allSettled([...writes]);
        },
      };
    },

    async list(): Promise<StoredDownloadInfo[]> {
      const idb = await database();
      const store = idb.transaction(RECORDS).objectStore(RECORDS);
      const [keys, values] = await Promise.all([done(store.getAllKeys()), done(store.getAll())]);
      return keys.map((key, i) => {
        const r = values[i] as RecordValue;
        return listed(key as string, { size: r.size, chunkGroupLog: r.chunkGroupLog }, r.runs);
      });
    },

    async remove(root: string): Promise<boolean> {
      aRoot(root);
      const idb = await database();
      const tx = idb.transaction([RECORDS, GROUPS, OUTBOARDS], 'readwrite');
      const found = (await done(tx.objectStore(RECORDS).count(root))) > 0;
      tx.objectStore(RECORDS).delete(root);
      tx.objectStore(GROUPS).delete(groupsOf(root));
      tx.objectStore(OUTBOARDS).delete(root);
      await committed(tx);
      return found;
    },
  };
}
