/**
 * Where checkpoints are kept between page loads, by upload identity. In browsers, IndexedDB
 * (through idb-keyval); any object with the same three methods works (tests, other storage).
 * @module
 */
import { createStore, del, get, set, type UseStore } from 'idb-keyval';
import type { Checkpoint } from './checkpoint.js';

export interface CheckpointStore {
  /** The stored value, unchecked: readers validate it (readCheckpoint). */
  get(upload: string): Promise<unknown>;
  set(upload: string, checkpoint: Checkpoint): Promise<void>;
  delete(upload: string): Promise<void>;
}

/** Checkpoints in IndexedDB, in database `dbName`, object store 'checkpoints'. */
export function indexedDbCheckpointStore(dbName = 'blake3-web-upload'): CheckpointStore {
  let store: UseStore | undefined;
  // Opened on first use: creating the store has no effect until then.
  const db = () => (store ??= createStore(dbName, 'checkpoints'));
  return {
    get: (upload) => get(upload, db()),
    set: (upload, checkpoint) => set(upload, checkpoint, db()),
    delete: (upload) => del(upload, db()),
  };
}
