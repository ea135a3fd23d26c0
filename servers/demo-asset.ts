// The Download page's asset: a large file of deterministic bytes, its Bao outboard (16 KiB
// groups) and its BLAKE3 root, made on first use and kept on disk, so a restart of the demo
// server costs a stat, not a rebuild. Written under `.part` names and renamed; the `.json`
// (size and root) comes last, so its presence means the three are whole.
import { bytesToHex } from '@blake3-web/core';
import { OutboardBuilder } from '@blake3-web/upload/_internal';
import { mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ASSET_CHUNK_GROUP_LOG = 4;
export const ASSET_GROUP_BYTES = 1024 << ASSET_CHUNK_GROUP_LOG;

/**
 * What the page can ask for: `large`, the demo's (256 MiB and a final group that is not whole);
 * `small`, the same kind of file at 32 MiB, for the e2e specs' many runs in three engines.
 */
export const ASSET_SIZES = {
  large: 256 * 1024 * 1024 + 9_999,
  small: 32 * 1024 * 1024 + 4_321,
} as const;
export type AssetName = keyof typeof ASSET_SIZES;

export type Asset = {
  readonly name: AssetName;
  readonly size: number;
  /** 64 hex digits. */
  readonly root: string;
  readonly chunkGroupLog: number;
  readonly contentPath: string;
  readonly outboardPath: string;
};

/** Bumped when the bytes' rule changes, so a stale cache is never served under a new root. */
const VERSION = 1;
const PIECE = 4 << 20;

export function isAssetName(name: string): name is AssetName {
  return Object.hasOwn(ASSET_SIZES, name);
}

/**
 * The bytes at `offset` onward: xorshift32 words seeded by the word index's 1 MiB block, so any
 * piece is made without the ones before it and no 16 KiB group repeats another.
 */
export function fillAsset(out: Uint8Array, offset: number): void {
  const words = new Uint32Array(out.buffer, out.byteOffset, out.length >> 2);
  const firstWord = offset >> 2;
  let s = 0;
  for (let i = 0; i < words.length; i++) {
    const w = firstWord + i;
    if (i === 0 || (w & 0x3ffff) === 0) s = (Math.imul((w >>> 18) + 1, 0x9e3779b9) ^ 0x5bd1e995) >>> 0 || 1;
    if (i === 0) for (let k = w & 0x3ffff; k > 0; k--) s = step(s);
    s = step(s);
    words[i] = s;
  }
  for (let i = words.length << 2; i < out.length; i++) out[i] = (offset + i) & 0xff;
}

function step(s: number): number {
  s ^= s << 13;
  s ^= s >>> 17;
  s ^= s << 5;
  return s >>> 0;
}

const making = new Map<AssetName, Promise<Asset>>();

/** The asset `name` under `directory`, made there first if it is not whole. */
export function demoAsset(name: AssetName, directory = defaultAssetDirectory()): Promise<Asset> {
  let p = making.get(name);
  if (!p) {
    p = loadOrMake(name, directory);
    making.set(name, p);
    p.catch(() => making.delete(name));
  }
  return p;
}

export function defaultAssetDirectory(): string {
  return join(tmpdir(), 'blake3-web-demo-download');
}

async function loadOrMake(name: AssetName, directory: string): Promise<Asset> {
  const size = ASSET_SIZES[name];
  const base = join(directory, `${name}-v${VERSION}`);
  const paths = { contentPath: `${base}.bin`, outboardPath: `${base}.bin.obao` };
  const info = await readFile(`${base}.json`, 'utf8').then(
    (text) => JSON.parse(text) as { size: number; root: string },
    () => undefined,
  );
  if (info?.size === size && /^[0-9a-f]{64}$/.test(info.root))
    return { name, size, root: info.root, chunkGroupLog: ASSET_CHUNK_GROUP_LOG, ...paths };

  await mkdir(directory, { recursive: true });
  const builder = new OutboardBuilder(`${base}.parents`, ASSET_CHUNK_GROUP_LOG);
  const file = await open(`${paths.contentPath}.part`, 'w');
  try {
    // The offsets are multiples of 4, so every piece starts on a word.
    const piece = new Uint8Array(PIECE);
    for (let at = 0; at < size; at += PIECE) {
      const bytes = piece.subarray(0, Math.min(PIECE, size - at));
      fillAsset(bytes, at);
      builder.update(bytes);
      if (builder.shouldFlush) await builder.flush();
      await file.write(bytes, 0, bytes.length, at);
    }
    await file.sync();
  } finally {
    await file.close();
  }
  const root = bytesToHex(builder.root());
  await builder.writeOutboard(`${paths.outboardPath}.part`);
  await builder.discard();
  await rename(`${paths.contentPath}.part`, paths.contentPath);
  await rename(`${paths.outboardPath}.part`, paths.outboardPath);
  await writeFile(`${base}.json.part`, JSON.stringify({ size, root }));
  await rename(`${base}.json.part`, `${base}.json`);
  await rm(`${base}.parents`, { force: true });
  return { name, size, root, chunkGroupLog: ASSET_CHUNK_GROUP_LOG, ...paths };
}
