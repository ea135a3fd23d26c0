// tus-js-client in Node through the adapter, as the upload tests run it against a tus server
// (@tus/server with the verifying store, or tusd with the hook): one upload, settled with what
// happened, optionally stopped once `stopAt` bytes were sent.
import { Upload, type UploadOptions } from 'tus-js-client';
import { blake3Tus, type Blake3TusDiscard, type Blake3TusOpts } from '../src/index.ts';
import { VERIFIED_HEADER } from '../src/tus-server.ts';

export type Outcome = {
  ok: boolean;
  error?: Error & { originalResponse?: { getStatus(): number; getBody(): string } | null };
  verified?: string;
  url: string | null;
};

/** Uploads `input` to `endpoint` in 64 KiB requests unless `extra` says otherwise. */
export function uploadThroughAdapter(
  endpoint: string,
  input: File,
  opts: Blake3TusOpts,
  extra: Partial<UploadOptions> = {},
  stopAt?: number,
) {
  const b3 = blake3Tus(opts);
  let upload!: Upload;
  const done = new Promise<Outcome>((resolve) => {
    upload = new Upload(input, {
      endpoint,
      chunkSize: 64 * 1024,
      retryDelays: [0, 10, 10],
      ...b3.options,
      ...extra,
      onProgress(sent) {
        if (stopAt !== undefined && sent >= stopAt)
          void upload.abort().then(() => resolve({ ok: false, url: upload.url }));
      },
      onSuccess: ({ lastResponse }) =>
        resolve({ ok: true, verified: lastResponse.getHeader(VERIFIED_HEADER), url: upload.url }),
      onError: (error) => resolve({ ok: false, error: error as Outcome['error'], url: upload.url }),
    } as UploadOptions);
  });
  upload.start();
  return { b3, done };
}

/** The discards reported, as [reason, url, fresh]. */
export function discards(): {
  events: Blake3TusDiscard[];
  onDiscard: (e: Blake3TusDiscard) => void;
  seen(): unknown[];
} {
  const events: Blake3TusDiscard[] = [];
  return { events, onDiscard: (e) => events.push(e), seen: () => events.map((e) => [e.reason, e.url, e.fresh]) };
}
