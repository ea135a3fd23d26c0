export { DownloadError, DownloadQuotaError, type SourceFailure } from './errors.js';
export type { DownloadOpts, DownloadProgress, SourceInput, SourceProgress, Strategy } from './download-options.js';
export type { ContentShape, DownloadStore, GroupRun, StoredContent, StoredDownloadInfo } from './store.js';
export { memoryStore } from './memory-store.js';
