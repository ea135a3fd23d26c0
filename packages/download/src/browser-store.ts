/**
 * The store a download uses in a browser unless told otherwise: the Origin Private File System
 * where the engine keeps files there (`opfsStore`), else IndexedDB (`idbStore`), so that a
 * download resumes after a reload in every engine; memory where neither can be used (a private
 * window that refuses both).
 * @module
 */
import { idbStore } from './idb-store.js';
import { memoryStore } from './memory-store.js';
import { hasOpfs, opfsStore } from './opfs-store.js';
import type { DownloadStore } from './store.js';

/**
 * The first store this realm can use, asked once on first use: `opfsStore()` if its worker can
 * open the directory and files there have sync access handles (Firefox's private windows refuse
 * OPFS; WebKitGTK has none), else `idbStore()` if IndexedDB opens, else `memoryStore()`.
 */
export function browserStore(): DownloadStore {
  let chosen: Promise<DownloadStore> | undefined;
  const choose = (): Promise<DownloadStore> =>
    (chosen ??= (async () => {
      if (hasOpfs()) {
        const opfs = opfsStore();
        if (
          await opfs.probe().then(
            () => true,
            () => false,
          )
        )
          return opfs;
      }
      if (typeof indexedDB !== 'undefined') {
        const idb = idbStore();
        if (
          await idb.list().then(
            () => true,
            () => false,
          )
        )
          return idb;
      }
      return memoryStore();
    })());
  return {
    open: async (root, shape) => (await choose()).open(root, shape),
    list: async () => (await choose()).list(),
    remove: async (root) => (await choose()).remove(root),
  };
}

let shared: DownloadStore | undefined;

/**
 * `download()`'s store when `opts.store` is absent: in a browser one `browserStore()` for the
 * page (one OPFS worker, whatever the number of downloads), so a download resumes after a reload;
 * elsewhere (Node, Deno, Bun) a fresh `memoryStore()`, as nothing says where files may go.
 */
export function defaultStore(): DownloadStore {
  if (!hasOpfs() && typeof indexedDB === 'undefined') return memoryStore();
  return (shared ??= browserStore());
}
