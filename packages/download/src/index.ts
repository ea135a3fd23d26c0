export { DownloadError, DownloadQuotaError, type SourceFailure } from './errors.js';
export type {
  DownloadOpts,
  DownloadProgress,
  GroupEvent,
  SourceInput,
  SourceProgress,
  Strategy,
} from './download-options.js';
export type { ContentShape, DownloadStore, GroupRun, StoredContent, StoredDownloadInfo } from './store.js';
export { memoryStore } from './memory-store.js';
export { download } from './download.js';
export { downloadStream } from './download-stream.js';
export { createVerifiedFetch, type VerifiedEntry, type VerifiedFetchOpts } from './verified-fetch.js';
export { opfsStore, type OpfsStoreOpts } from './opfs-store.js';
export { idbStore, type IdbStoreOpts } from './idb-store.js';
export { browserStore } from './browser-store.js';
