/**
 * The record of a stored download's verified groups, as bytes: a header naming the download
 * (root, size, chunk group size), then one 16-byte entry per commit. Entries are only appended,
 * so a crash can tear at most the last one; every header and entry carries a check, and reading
 * stops at the first that fails, so a torn or damaged tail is dropped, never believed.
 * @module
 */
import { blake3 } from '@blake3-web/core';
import type { ContentShape, GroupRun, StoredDownloadInfo } from './store.js';

const MAGIC = 'B3DLREC1';
/** A root as stores name downloads by it: 64 lowercase hex digits. */
export const ROOT_HEX: RegExp = /^[0-9a-f]{64}$/;
const RECORD_SUFFIX = '.record';
export const RECORD_HEADER_LEN = 64;
export const RECORD_ENTRY_LEN = 16;
const CONTEXT = 'blake3-web download record v1';

const check = (bytes: Uint8Array): Uint8Array => blake3(bytes, { context: CONTEXT, dkLen: 8 });

/** The header: magic, size (u64 LE), chunkGroupLog, root, and a check of all that. */
export function encodeRecordHeader(root: Uint8Array, shape: ContentShape): Uint8Array {
  const out = new Uint8Array(RECORD_HEADER_LEN);
  const view = new DataView(out.buffer);
  out.set(new TextEncoder().encode(MAGIC), 0);
  view.setBigUint64(8, BigInt(shape.size), true);
  out[16] = shape.chunkGroupLog;
  out.set(root, 24);
  out.set(check(out.subarray(0, 56)), 56);
  return out;
}

/** One entry: the first group (u64 LE), the count (u32 LE), and a check bound to the root. */
export function encodeRecordEntries(root: Uint8Array, runs: readonly GroupRun[]): Uint8Array {
  const out = new Uint8Array(RECORD_ENTRY_LEN * runs.length);
  const view = new DataView(out.buffer);
  const keyed = new Uint8Array(32 + 12);
  keyed.set(root);
  runs.forEach((run, i) => {
    const at = i * RECORD_ENTRY_LEN;
    view.setBigUint64(at, BigInt(run.first), true);
    view.setUint32(at + 8, run.count, true);
    keyed.set(out.subarray(at, at + 12), 32);
    out.set(check(keyed).subarray(0, 4), at + 12);
  });
  return out;
}

/**
 * The runs a record holds, and how many of its bytes are sound (where the next entry goes);
 * undefined when its header is not this download's (another root or shape, or damaged).
 */
export function decodeRecord(
  bytes: Uint8Array,
  root: Uint8Array,
  shape: ContentShape,
): { runs: GroupRun[]; soundBytes: number } | undefined {
  if (bytes.length < RECORD_HEADER_LEN) return undefined;
  const header = encodeRecordHeader(root, shape);
  for (let i = 0; i < RECORD_HEADER_LEN; i++) if (bytes[i] !== header[i]) return undefined;
  const groups = groupCount(shape);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const runs: GroupRun[] = [];
  let at = RECORD_HEADER_LEN;
  for (; at + RECORD_ENTRY_LEN <= bytes.length; at += RECORD_ENTRY_LEN) {
    const first = Number(view.getBigUint64(at, true));
    const count = view.getUint32(at + 8, true);
    const want = encodeRecordEntries(root, [{ first, count }]);
    let same = true;
    for (let i = 0; i < RECORD_ENTRY_LEN; i++) same &&= bytes[at + i] === want[i];
    if (!same || count === 0 || first + count > groups) break;
    runs.push({ first, count });
  }
  return { runs, soundBytes: at };
}

/** Reads the shape from a record's header if the header is sound (for `list()`). */
export function recordShape(bytes: Uint8Array): (ContentShape & { root: Uint8Array }) | undefined {
  if (bytes.length < RECORD_HEADER_LEN) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const shape = { size: Number(view.getBigUint64(8, true)), chunkGroupLog: bytes[16] };
  const root = bytes.slice(24, 56);
  return decodeRecord(bytes.subarray(0, RECORD_HEADER_LEN), root, shape) ? { ...shape, root } : undefined;
}

/** Groups (leaves) in content of this shape: the empty content is one empty group. */
export function groupCount(shape: ContentShape): number {
  const leaf = 1024 * 2 ** shape.chunkGroupLog;
  return shape.size === 0 ? 1 : Math.ceil(shape.size / leaf);
}

/** Content bytes the runs cover (each group counted once). */
export function coveredBytes(runs: readonly GroupRun[], shape: ContentShape): number {
  const leaf = 1024 * 2 ** shape.chunkGroupLog;
  const sorted = runs.map((r) => [r.first, r.first + r.count]).sort((a, b) => a[0] - b[0]);
  let total = 0;
  let reached = 0;
  for (const [from, to] of sorted) {
    const start = Math.max(from, reached);
    if (to > start) total += Math.min(shape.size, to * leaf) - Math.min(shape.size, start * leaf);
    reached = Math.max(reached, to);
  }
  return total;
}

/** The root a record file of a store's directory is named for (`<root>.record`), if it is one. */
export function recordFileRoot(name: string): string | undefined {
  const root = name.slice(0, -RECORD_SUFFIX.length);
  return name.endsWith(RECORD_SUFFIX) && ROOT_HEX.test(root) ? root : undefined;
}

/** The `list()` entry of a record file's bytes; undefined when its header is not sound. */
export function listedRecord(root: string, bytes: Uint8Array): StoredDownloadInfo | undefined {
  const shape = recordShape(bytes);
  if (!shape) return undefined;
  return listed(
    root,
    { size: shape.size, chunkGroupLog: shape.chunkGroupLog },
    decodeRecord(bytes, shape.root, shape)?.runs ?? [],
  );
}

/** The `list()` entry of a download of `shape` whose record holds `runs`. */
export function listed(root: string, shape: ContentShape, runs: readonly GroupRun[]): StoredDownloadInfo {
  const recordedBytes = coveredBytes(runs, shape);
  return {
    root,
    size: shape.size,
    chunkGroupLog: shape.chunkGroupLog,
    recordedBytes,
    // The empty content's one group covers no bytes: complete once recorded.
    complete: shape.size === 0 ? runs.length > 0 : recordedBytes === shape.size,
  };
}
