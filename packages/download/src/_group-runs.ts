/**
 * The groups of a download as runs: those a store holds that still verify, the ranges to fetch
 * for the others, and runs joined for the record.
 * @module
 */
import type { RangeRequest } from './_fetch-range.js';
import type { LeafHashes } from './_leaf-hashes.js';
import type { Source } from './_sources.js';
import type { GroupRun, StoredContent } from './store.js';

/** Bytes read back at a time when stored groups are checked again. */
const RECHECK_BYTES = 4 << 20;

/** A range to fetch, with the sources that failed it and how often it was tried. */
export type Range = RangeRequest & { failedOn: Set<Source>; attempts: number };

/** The missing groups before `end`, as ranges of at most `perRange` groups, in order. */
export function plan(have: Uint8Array, end: number, perRange: number): Range[] {
  const ranges: Range[] = [];
  for (let g = 0; g < end;) {
    if (have[g]) {
      g++;
      continue;
    }
    let n = 0;
    while (g + n < end && !have[g + n] && n < perRange) n++;
    ranges.push({ first: g, count: n, failedOn: new Set(), attempts: 0 });
    g += n;
  }
  return ranges;
}

/** Recorded groups that still verify, as runs; marks them in `have`. */
export async function recheck(stored: StoredContent, tree: LeafHashes, have: Uint8Array): Promise<GroupRun[]> {
  const good: GroupRun[] = [];
  const perRead = Math.max(1, Math.floor(RECHECK_BYTES / tree.groupBytes));
  for (const run of stored.recorded) {
    for (let g = run.first; g < run.first + run.count;) {
      if (g >= tree.groups) break;
      if (have[g]) {
        g++;
        continue;
      }
      const n = Math.min(perRead, run.first + run.count - g, tree.groups - g);
      const start = g * tree.groupBytes;
      const end = Math.min(tree.size, (g + n) * tree.groupBytes);
      const bytes = await stored.read(start, end - start);
      // A verify stops at the first group that fails; the groups after it are checked on their own.
      for (let at = 0; bytes.length === end - start && at < n;) {
        const ok = tree.verify(g + at, bytes.subarray(at * tree.groupBytes));
        for (let i = 0; i < ok; i++) have[g + at + i] = 1;
        if (ok > 0) good.push({ first: g + at, count: ok });
        at += ok + 1;
      }
      g += n;
    }
  }
  return merge(good);
}

/** Runs sorted and joined where they touch. */
export function merge(runs: readonly GroupRun[]): GroupRun[] {
  const sorted = runs.slice().sort((a, b) => a.first - b.first);
  const out: GroupRun[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && last.first + last.count >= r.first)
      out[out.length - 1] = { first: last.first, count: Math.max(last.count, r.first + r.count - last.first) };
    else out.push({ first: r.first, count: r.count });
  }
  return out;
}

export function groupLen(tree: LeafHashes, g: number): number {
  const { start, end } = tree.groupBounds(g);
  return end - start;
}
