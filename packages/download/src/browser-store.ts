/**
 * The store a download uses in a browser unless told otherwise: the Origin Private File System
 * where the engine has it (`opfsStore`), else IndexedDB (`idbStore`), so that a download resumes
 * after a reload in every engine.
 * @module
 */
import { idbStore } from './idb-store.js';
import { memoryStore } from './memory-store.js';
import { hasOpfs, opfsStore } from './opfs-store.js';
import type { DownloadStore } from './store.js';

/** `opfsStore()` where this realm has OPFS, else `idbStore()`. */
export function browserStore(): DownloadStore {
  return hasOpfs() ? opfsStore() : idbStore();
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
