export { DownloadError, DownloadQuotaError, type SourceFailure } from './errors.js';
export type { DownloadOpts, DownloadProgress, SourceInput, SourceProgress, Strategy } from './download-options.js';
export type { ContentShape, DownloadStore, GroupRun, StoredContent, StoredDownloadInfo } from './store.js';
export { memoryStore } from './memory-store.js';
export { opfsStore, type OpfsStoreOpts } from './opfs-store.js';
export { idbStore, type IdbStoreOpts } from './idb-store.js';
export { browserStore } from './browser-store.js';
