import { prepare } from './_engine.js';
import type { DownloadOpts, SourceInput } from './download-options.js';
import { defaultStore } from './browser-store.js';

/**
 * Downloads the content whose BLAKE3 hash is `opts.root` from `sources` (one URL, or mirrors of
 * the same content), as parallel range requests whose every group is verified on arrival, and
 * resolves to it as a Blob once every group is stored. With a persistent `opts.store`, a
 * download of the same root goes on from the groups stored before (checked again first).
 *
 * Bad arguments throw now (`TypeError`, `RangeError`); the promise rejects with a
 * `DownloadError` naming what each source did when no source can serve some range, a
 * `DownloadQuotaError` when the store is full, or the signal's reason on an abort.
 *
 * @example
 * ```ts
 * const blob = await download(['https://a.example/model.bin', 'https://b.example/model.bin'], {
 *   root: 'af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262',
 * });
 * ```
 */
export function download(sources: SourceInput | readonly SourceInput[], opts: DownloadOpts): Promise<Blob> {
  const start = prepare(sources, opts, { defaultStore });
  return start().then(async ({ stored }) => {
    try {
      return await stored.blob();
    } finally {
      await stored.close();
    }
  });
}
