export { main } from './main.js';
export { publishMain } from './publish-main.js';
export type { DownloadManifest } from './manifest.js';
