/// <reference lib="webworker" />
// A service worker that precaches blobs, each checked against its BLAKE3: it installs only if
// every one matches, and then serves them without the network. The list is in the script URL
// (URLs relative to it), so one build serves any list; changing the list is an update, which
// fails, leaving the installed worker in charge, if any blob does not match:
// - `blob=<url>`: a content-addressed blob, checked against the BLAKE3 in its URL;
// - `entry=<url> <hex>`: a URL that does not name its content, with the BLAKE3 of that content
//   (as a manifest generated at build time carries it; it doubles as the revision);
// - `ignore=<name>`: a search parameter the precache route ignores when it matches URLs, beside
//   Workbox's default `utm_*` and `fbclid`.
import {
  Blake3IntegrityPlugin,
  firstOf,
  hashFromPrecacheManifest,
  hashFromUrlPath,
  type Blake3PrecacheEntry,
} from '@blake3-web/workbox';
import { clientsClaim } from 'workbox-core';
import { addPlugins, precacheAndRoute } from 'workbox-precaching';

declare const self: ServiceWorkerGlobalScope;

void self.skipWaiting();
clientsClaim();

const params = new URL(self.location.href).searchParams;
const manifest: Blake3PrecacheEntry[] = [
  // The URLs name their content, so no revision is needed (Workbox's `revision: null`).
  ...params.getAll('blob').map((url) => ({ url, revision: null })),
  ...params.getAll('entry').map((entry) => {
    const [url, blake3] = entry.split(' ');
    return { url, revision: blake3, blake3 };
  }),
];
const escape = (name: string) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// Added before precacheAndRoute so install already uses it.
addPlugins([new Blake3IntegrityPlugin({ expectedHash: firstOf(hashFromPrecacheManifest(manifest), hashFromUrlPath) })]);
precacheAndRoute(manifest, {
  ignoreURLParametersMatching: [
    /^utm_/,
    /^fbclid$/,
    ...params.getAll('ignore').map((name) => new RegExp(`^${escape(name)}$`)),
  ],
});
