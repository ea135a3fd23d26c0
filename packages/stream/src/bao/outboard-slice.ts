import { aUint8Array, anumber } from '../_assert.js';
import { resolveLeafBytes, type BaoTreeOpts } from './_options.js';
import { gatherSlice } from './slice.js';
import { HEADER_LEN, outboardSubtreeLen, readLengthHeader, sliceRange } from './tree-shape.js';

/**
 * The content bytes [start, end) that a slice of [start, start + count) holds: the requested
 * range widened to whole leaves (1 KiB chunks, or chunk groups) and capped at the end, with the
 * slice rules of `baoSlice` (a count of 0 counts as 1; a start at or past the end means the final
 * leaf). What to ask a server for, with `Range: bytes=start-(end - 1)`, to verify that range.
 */
export function baoSliceBounds(
  contentLen: number,
  start: number,
  count: number,
  opts?: BaoTreeOpts,
): { start: number; end: number } {
  anumber(contentLen, 'contentLen');
  anumber(start, 'start');
  anumber(count, 'count');
  const leafBytes = resolveLeafBytes(opts);
  const range = sliceRange(contentLen, start, count);
  return {
    start: range.start - (range.start % leafBytes),
    end: Math.min(contentLen, Math.ceil(range.end / leafBytes) * leafBytes),
  };
}

/**
 * The slice proving content bytes [start, start + count), from the outboard encoding and only
 * the part of the content the slice holds: `content` is content from byte `contentStart` and
 * must cover `baoSliceBounds(contentLen, start, count)`. Byte for byte `baoSlice({ data,
 * outboard }, start, count)` without the rest of the content: what a client holding an outboard
 * builds from a range response, to check it with `baoDecodeSlice`. Like `baoSlice` it checks no
 * hashes.
 *
 * @example
 * ```ts
 * const { start, end } = baoSliceBounds(contentLen, 1 << 20, 65536);
 * const piece = new Uint8Array(await (await fetch(url, { headers: { range: `bytes=${start}-${end - 1}` } })).arrayBuffer());
 * const bytes = baoDecodeSlice(baoOutboardSlice(outboard, piece, start, 1 << 20, 65536), hash, 1 << 20, 65536);
 * ```
 */
export function baoOutboardSlice(
  outboard: Uint8Array,
  content: Uint8Array,
  contentStart: number,
  start: number,
  count: number,
  opts?: BaoTreeOpts,
): Uint8Array {
  outboard = aUint8Array(outboard, 'outboard');
  content = aUint8Array(content, 'content');
  anumber(contentStart, 'contentStart');
  anumber(start, 'start');
  anumber(count, 'count');
  const leafBytes = resolveLeafBytes(opts);
  const contentLen = readLengthHeader(outboard, (why) => new RangeError(`outboard ${why}`));
  const expected = HEADER_LEN + outboardSubtreeLen(contentLen, leafBytes);
  if (outboard.length !== expected) {
    throw new RangeError(
      `the length header says ${contentLen} content bytes, which needs an outboard of ${expected} bytes; got ${outboard.length}`,
    );
  }
  const bounds = baoSliceBounds(contentLen, start, count, opts);
  if (contentStart > bounds.start || contentStart + content.length < bounds.end) {
    throw new RangeError(
      `content must cover bytes ${bounds.start} to ${bounds.end} for this slice, got bytes ${contentStart} to ${contentStart + content.length}`,
    );
  }
  return gatherSlice(
    outboard,
    false,
    content,
    contentStart,
    contentLen,
    leafBytes,
    sliceRange(contentLen, start, count),
  );
}
