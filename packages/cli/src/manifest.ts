/**
 * The JSON manifest `b3web-publish` writes beside a file and its outboard: what a verified
 * download needs to know before its first byte (docs/download.md, "Publishing").
 * @module
 */

/** The manifest's format; a reader refuses another. */
export const MANIFEST_VERSION = 1;

export type DownloadManifest = {
  version: typeof MANIFEST_VERSION;
  /** The file's name, without its directory. */
  name: string;
  /** The content's size in bytes, as the outboard's header says it. */
  size: number;
  /** The BLAKE3 hash of the content (the Bao root), 64 lowercase hex digits: `download`'s `root`. */
  root: string;
  /** Chunk groups of 2^chunkGroupLog chunks of 1 KiB (4: 16 KiB): `download`'s `chunkGroupLog`. */
  chunkGroupLog: number;
  /** The outboard, as a URL relative to the manifest's. */
  outboard: string;
  /** Where the content is served, when given: `download`'s `sources`. */
  sources?: string[];
};

/** `name` as one path segment of a URL (a name with `/`, `?`, `#` or `%` stays one segment). */
export const urlSegment = (name: string): string => encodeURIComponent(name);

/**
 * The URL of the content at `source`: a source that ends with `/` is a directory, which the
 * file's name completes; any other is the file's own URL.
 */
export function sourceUrl(source: URL, name: string): string {
  return source.href.endsWith('/') ? new URL(urlSegment(name), source).href : source.href;
}

/** The manifest's text: one field per line, in the order above, with a final newline. */
export function manifestText(manifest: DownloadManifest): string {
  return `${JSON.stringify(manifest, null, 2)}\n`;
}
