/// <reference lib="webworker" />
import { baoRangeHandler, Blake3IntegrityPlugin } from '@blake3-web/workbox';
import { clientsClaim } from 'workbox-core';
import { registerRoute } from 'workbox-routing';
import { CacheFirst, NetworkFirst, StaleWhileRevalidate } from 'workbox-strategies';

import { isMedia, mediaRanges } from './media-ranges.ts';

declare const self: ServiceWorkerGlobalScope;

void self.skipWaiting();
clientsClaim();

// Tell the pages about refused bytes so they can show why a download failed.
const integrity = new Blake3IntegrityPlugin({
  onMismatch: ({ request, error }) => {
    void self.clients.matchAll().then((clients) => {
      for (const c of clients)
        c.postMessage({ type: 'blake3-mismatch', url: request.url, expected: error.expected, actual: error.actual });
    });
  },
});

// The same blobs under the other usual strategies, so their behaviour with the plugin is tested too.
const blob =
  (prefix: string) =>
  ({ url }: { url: URL }) =>
    new RegExp(`/${prefix}/blobs/[0-9a-f]{64}$`).test(url.pathname);
registerRoute(
  blob('stale-while-revalidate'),
  new StaleWhileRevalidate({ cacheName: 'blake3-blobs-swr', plugins: [integrity] }),
);
registerRoute(blob('network-first'), new NetworkFirst({ cacheName: 'blake3-blobs-nf', plugins: [integrity] }));

// The same blobs, never cached, with ranges answered by bytes checked through the blob's Bao
// outboard (`<blob>.obao`, fetched once per blob): what a media player's range requests need.
registerRoute(
  blob('verified-ranges'),
  baoRangeHandler({
    outboard: (request) => {
      const url = new URL(request.url);
      url.search = '';
      url.pathname += '.obao';
      return url;
    },
  }),
);

// Content-addressed blobs: served from the cache once verified, and only if verified.
registerRoute(
  ({ url }) => /\/blobs\/[0-9a-f]{64}$/.test(url.pathname),
  new CacheFirst({ cacheName: 'blake3-blobs', plugins: [integrity] }),
);

// The Video page's clip, from its CDN: every range the media element asks for is answered with
// bytes checked against the root in the clip's path, and reported to the page.
registerRoute(isMedia, mediaRanges);
