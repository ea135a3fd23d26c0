/**
 * The store a download uses in a browser unless told otherwise: the Origin Private File System
 * where the engine has it (`opfsStore`), else IndexedDB (`idbStore`), so that a download resumes
 * after a reload in every engine.
 * @module
 */
import { idbStore } from './idb-store.js';
import { hasOpfs, opfsStore } from './opfs-store.js';
import type { DownloadStore } from './store.js';

/** `opfsStore()` where this realm has OPFS, else `idbStore()`. */
export function browserStore(): DownloadStore {
  return hasOpfs() ? opfsStore() : idbStore();
}
