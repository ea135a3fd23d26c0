/**
 * One file published: its Bao outboard built as the file is read once, in 4 MiB pieces (memory
 * bounded: a piece, one group and the tree's stack; the parents wait in a file beside the
 * outboard, as the upload server's builder keeps them), then its manifest.
 * @module
 */
import { bytesToHex } from '@blake3-web/core';
import { OutboardBuilder } from '@blake3-web/upload/_internal';
import { open, rename, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { MANIFEST_VERSION, manifestText, sourceUrl, urlSegment, type DownloadManifest } from './manifest.js';

const READ_BYTES = 4 << 20;

export type Published = {
  root: Uint8Array;
  size: number;
  outboardPath: string;
  manifestPath: string | undefined;
};

export type PublishOpts = {
  chunkGroupLog: number;
  sources: readonly URL[];
  /** Where the outboard and manifest go; beside the file when absent. */
  outDir?: string;
  manifest: boolean;
};

/** What `publishFile` writes for `path`: `<dir>/<name>.obao` and `<dir>/<name>.manifest.json`. */
export function publishedPaths(path: string, outDir?: string): { outboard: string; manifest: string } {
  const at = join(outDir ?? dirname(path), basename(path));
  return { outboard: `${at}.obao`, manifest: `${at}.manifest.json` };
}

export async function publishFile(path: string, opts: PublishOpts): Promise<Published> {
  const paths = publishedPaths(path, opts.outDir);
  const builder = new OutboardBuilder(`${paths.outboard}.parents`, opts.chunkGroupLog);
  try {
    const file = await open(path, 'r');
    try {
      const piece = new Uint8Array(READ_BYTES);
      for (;;) {
        const { bytesRead } = await file.read(piece, 0, piece.length, null);
        if (bytesRead === 0) break;
        // The builder copies what it keeps of a piece (a group not yet whole), so one buffer serves.
        builder.update(piece.subarray(0, bytesRead));
        if (builder.shouldFlush) await builder.flush();
      }
    } finally {
      await file.close();
    }
    const root = builder.root();
    const size = builder.length;
    await builder.writeOutboard(paths.outboard);
    if (!opts.manifest) return { root, size, outboardPath: paths.outboard, manifestPath: undefined };
    const name = basename(path);
    const manifest: DownloadManifest = {
      version: MANIFEST_VERSION,
      name,
      size,
      root: bytesToHex(root),
      chunkGroupLog: opts.chunkGroupLog,
      outboard: `${urlSegment(name)}.obao`,
    };
    if (opts.sources.length > 0) manifest.sources = opts.sources.map((s) => sourceUrl(s, name));
    const part = `${paths.manifest}.part`;
    await writeFile(part, manifestText(manifest));
    await rename(part, paths.manifest);
    return { root, size, outboardPath: paths.outboard, manifestPath: paths.manifest };
  } finally {
    await builder.discard();
  }
}
