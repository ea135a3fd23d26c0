/// <reference lib="webworker" />
import { Blake3IntegrityPlugin } from '@blake3-web/workbox';
import { clientsClaim } from 'workbox-core';
import { registerRoute } from 'workbox-routing';
import { CacheFirst } from 'workbox-strategies';

declare const self: ServiceWorkerGlobalScope;

void self.skipWaiting();
clientsClaim();

// Tell the pages about refused bytes so they can show why a download failed.
const integrity = new Blake3IntegrityPlugin({
  onMismatch: ({ request, error }) => {
    void self.clients.matchAll().then((clients) => {
      for (const c of clients) c.postMessage({ type: 'blake3-mismatch', url: request.url, expected: error.expected, actual: error.actual });
    });
  },
});

// Content-addressed blobs: served from the cache once verified, and only if verified.
registerRoute(({ url }) => /\/blobs\/[0-9a-f]{64}$/.test(url.pathname), new CacheFirst({ cacheName: 'blake3-blobs', plugins: [integrity] }));
