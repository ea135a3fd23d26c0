/// <reference lib="webworker" />
// The service worker's route for the Video page's clip: baoRangeHandler answers each range the
// media element asks for with verified bytes, and every request is reported to the page as it
// opens and as it ends (verified, refused and why, or cancelled by the element), with the bytes
// the page got.
import { IntegrityError } from '@blake3-web/stream';
import { baoRangeHandler } from '@blake3-web/workbox';
import type { RouteHandlerCallback, RouteMatchCallback } from 'workbox-core/types.js';

import { MEDIA_PIECE_BYTES, MEDIA_WINDOW_BYTES } from './media-pieces.ts';
import type { MediaRangeReport } from './media-report.ts';

declare const self: ServiceWorkerGlobalScope;

/** `/media/<BLAKE3 root>/<name>` on any origin: the root in the path is what the bytes must hash to. */
const MEDIA_PATH = /\/media\/([0-9a-f]{64})\/[^/]+$/;

export const isMedia: RouteMatchCallback = ({ url }) => MEDIA_PATH.test(url.pathname);

/** The refusal behind each `Response.error()` the handler returns, by request. */
const refusals = new WeakMap<Request, Error>();

const verifiedRanges = baoRangeHandler({
  expectedHash: (request) => MEDIA_PATH.exec(new URL(request.url).pathname)?.[1],
  // Next to the clip, with the same query (the CDN's viewer session).
  outboard: (request) => {
    const url = new URL(request.url);
    url.pathname += '.obao';
    return url;
  },
  // One clip at a time: its outboard (about 1/16 of its size) is all the worker keeps.
  outboardCacheSize: 1,
  // The player asks for the rest of the file at every seek; it gets a piece at a time, and asks
  // again when it wants more.
  maxRangeBytes: MEDIA_PIECE_BYTES,
  windowBytes: MEDIA_WINDOW_BYTES,
  onMismatch: ({ request, error }) => void refusals.set(request, error),
});

let nextId = 0;

export const mediaRanges: RouteHandlerCallback = async (options) => {
  const { request, event } = options;
  const id = nextId++;
  const report = (r: Omit<MediaRangeReport, 'type' | 'id' | 'url' | 'range'>) => {
    const message: MediaRangeReport = {
      type: 'blake3-media-range',
      id,
      url: request.url,
      range: request.headers.get('range'),
      ...r,
    };
    void tell((event as FetchEvent | undefined)?.clientId, message);
  };
  let response: Response;
  try {
    response = await verifiedRanges(options);
  } catch (err) {
    report({ outcome: 'failed', bytes: 0, reason: describe(err) });
    throw err;
  }
  if (response.type === 'error') {
    const why = refusals.get(request);
    report({ outcome: why ? 'refused' : 'failed', bytes: 0, reason: why ? describe(why) : 'network error' });
    return response;
  }
  const contentRange = response.headers.get('content-range') ?? undefined;
  if (!response.ok || response.body === null) {
    report({ outcome: 'failed', bytes: 0, contentRange, reason: `${response.status} ${response.statusText}` });
    return response;
  }
  report({ outcome: 'open', bytes: 0, contentRange });
  const reader = response.body.getReader();
  let bytes = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } catch (err) {
        report({
          outcome: err instanceof IntegrityError ? 'refused' : 'failed',
          bytes,
          contentRange,
          reason: describe(err),
        });
        controller.error(err);
        return;
      }
      try {
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      } catch {
        // The page's side errored the stream: the player dropped the request (it seeked away).
        report({ outcome: 'cancelled', bytes, contentRange });
        await reader.cancel().catch(() => {});
        return;
      }
      if (next.done) report({ outcome: 'verified', bytes, contentRange });
      else bytes += next.value.length;
    },
    cancel(reason) {
      report({ outcome: 'cancelled', bytes, contentRange });
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
};

async function tell(clientId: string | undefined, message: MediaRangeReport): Promise<void> {
  const client = clientId ? await self.clients.get(clientId) : undefined;
  const to = client ? [client] : await self.clients.matchAll({ type: 'window' });
  for (const c of to) c.postMessage(message);
}

function describe(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
