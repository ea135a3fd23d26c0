/// <reference lib="webworker" />
// A service worker that precaches content-addressed blobs, each checked against the BLAKE3 in
// its URL: it installs only if every one matches, and then serves them without the network.
// The blobs are `?blob=<url>` parameters of the script URL (relative to it), so one build
// serves any list; changing the list is an update, which fails, leaving the installed worker in
// charge, if any blob does not match.
import { Blake3IntegrityPlugin } from '@blake3-web/workbox';
import { clientsClaim } from 'workbox-core';
import { addPlugins, precacheAndRoute } from 'workbox-precaching';

declare const self: ServiceWorkerGlobalScope;

void self.skipWaiting();
clientsClaim();

// Added before precacheAndRoute so install already uses it. The URLs name their content, so no
// revision is needed (Workbox's `revision: null`).
addPlugins([new Blake3IntegrityPlugin()]);
precacheAndRoute(new URL(self.location.href).searchParams.getAll('blob').map((url) => ({ url, revision: null })));
