/**
 * The store of a stream without `opts.store`: it keeps the record (so the engine knows what it
 * has) but no bytes, which the stream holds until they are read.
 * @module
 */
import type { DownloadStore, GroupRun } from './store.js';

export function discardStore(): DownloadStore {
  return {
    async open() {
      const record: GroupRun[] = [];
      return {
        recorded: [],
        readOutboard: async () => undefined,
        writeOutboard: async () => {},
        write: async () => {},
        commit: async (runs) => void record.push(...runs),
        rewriteRecord: async () => {},
        read: async () => {
          throw new Error('a stream without a store keeps no bytes to read back');
        },
        blob: async () => {
          throw new Error('a stream without a store keeps no bytes to read back');
        },
        close: async () => {},
      };
    },
    list: async () => [],
    remove: async () => false,
  };
}
