// Shipped size: what a bundler adds to a page for each library, minified and gzipped (level 9).
import { gzipSync } from 'node:zlib';

import { build } from 'esbuild';

export interface BundleSize {
  readonly name: string;
  /** The import measured, as a user would write it. */
  readonly entry: string;
  readonly minBytes: number;
  readonly gzipBytes: number;
}

/** Bundles `source` (an ES module) for the browser, minified, and measures it. */
export async function measureBundle(
  name: string,
  entry: string,
  source: string,
  resolveDir: string,
): Promise<BundleSize> {
  const out = await build({
    stdin: { contents: source, resolveDir, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  const code = out.outputFiles[0].contents;
  return { name, entry, minBytes: code.length, gzipBytes: gzipSync(code, { level: 9 }).length };
}

/**
 * Our whole public entry (`packages/core/dist/index.js`, nothing tree-shaken), then the BLAKE3
 * part of each peer for context: what importing only their BLAKE3 functions brings in.
 */
export async function measureBundles(coreDistIndex: string, resolveDir: string): Promise<BundleSize[]> {
  return Promise.all([
    measureBundle(
      '@blake3-web/core',
      'dist/index.js, every export',
      `export * from ${JSON.stringify(coreDistIndex)};`,
      resolveDir,
    ),
    measureBundle(
      '@blake3-web/core',
      '{ blake3 }',
      `export { blake3 } from ${JSON.stringify(coreDistIndex)};`,
      resolveDir,
    ),
    measureBundle(
      'blake3-jit',
      '{ hash, createHasher }',
      `export { hash, createHasher } from 'blake3-jit';`,
      resolveDir,
    ),
    measureBundle('hash-wasm', '{ createBLAKE3 }', `export { createBLAKE3 } from 'hash-wasm';`, resolveDir),
    measureBundle('@noble/hashes', '{ blake3 }', `export { blake3 } from '@noble/hashes/blake3.js';`, resolveDir),
  ]);
}
