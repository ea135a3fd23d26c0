import { aUint8Array, anumber } from '../_assert.js';
import { baoHash, resolveLeafBytes, type BaoTreeOpts } from './_options.js';
import { TreeVerifier } from './_tree-verifier.js';
import { ByteCursor, verifyInMemory } from './_verify-in-memory.js';
import { concatBytes } from './_concat.js';
import {
  encodedSubtreeLen,
  HEADER_LEN,
  outboardSubtreeLen,
  PARENT_LEN,
  preOrder,
  readLengthHeader,
  sliceRange,
} from './tree-shape.js';

/** A combined encoding, or the content with its outboard encoding. */
export type BaoSource = Uint8Array | { data: Uint8Array; outboard: Uint8Array };

/**
 * Extracts the slice of an encoding that proves content bytes [start, start + count): the header,
 * then the parents and chunks a reader seeking to `start` and reading `count` bytes would meet,
 * in pre-order. Byte for byte what `bao slice start count` gives (with `--outboard` for a
 * `{ data, outboard }` source). Like the reference, it checks no hashes, caps the range at the end
 * of the content and always includes at least one chunk.
 *
 * @example
 * ```ts
 * const slice = baoSlice(encoded, 1 << 20, 65536); // ~68 KiB that prove 64 KiB of a large file
 * const bytes = baoDecodeSlice(slice, hash, 1 << 20, 65536);
 * ```
 */
export function baoSlice(source: BaoSource, start: number, count: number, opts?: BaoTreeOpts): Uint8Array {
  anumber(start, 'start');
  anumber(count, 'count');
  const leafBytes = resolveLeafBytes(opts);
  const combined = !(typeof source === 'object' && source !== null && 'outboard' in source);
  const tree = aUint8Array(combined ? source : source.outboard, combined ? 'source' : 'source.outboard');
  const data = combined ? tree : aUint8Array(source.data, 'source.data');
  const contentLen = readLengthHeader(
    tree,
    (why) => new RangeError(`${combined ? 'source' : 'source.outboard'} ${why}`),
  );
  const expected = combined
    ? HEADER_LEN + encodedSubtreeLen(contentLen, leafBytes)
    : HEADER_LEN + outboardSubtreeLen(contentLen, leafBytes);
  if (tree.length !== expected || (!combined && data.length !== contentLen)) {
    const got = combined ? `${tree.length} bytes` : `${data.length} content bytes and ${tree.length} outboard bytes`;
    throw new RangeError(
      `the length header says ${contentLen} content bytes, which needs ${combined ? `${expected} encoded bytes` : `an outboard of ${expected} bytes`}; got ${got}`,
    );
  }
  return gatherSlice(tree, combined, data, 0, contentLen, leafBytes, sliceRange(contentLen, start, count));
}

/**
 * The nodes of the slice of `range`, in pre-order after the header: parents from `tree`, leaves
 * from `tree` too when it is the combined encoding, else from `data`, which holds content from
 * byte `dataStart`. Sizes are checked by the callers.
 */
export function gatherSlice(
  tree: Uint8Array,
  combined: boolean,
  data: Uint8Array,
  dataStart: number,
  contentLen: number,
  leafBytes: number,
  range: { start: number; end: number },
): Uint8Array {
  const pieces: Uint8Array[] = [tree.subarray(0, HEADER_LEN)];
  let size = HEADER_LEN;
  let treePos = HEADER_LEN;
  const take = (from: Uint8Array, at: number, n: number): void => {
    pieces.push(from.subarray(at, at + n));
    size += n;
  };
  for (const node of preOrder(contentLen, { leafBytes, rangeStart: range.start, rangeEnd: range.end })) {
    if (node.kind === 'parent') {
      take(tree, treePos, PARENT_LEN);
      treePos += PARENT_LEN;
    } else if (node.kind === 'leaf') {
      take(data, combined ? treePos : node.start - dataStart, node.len);
      if (combined) treePos += node.len;
    } else {
      treePos += combined ? encodedSubtreeLen(node.len, leafBytes) : outboardSubtreeLen(node.len, leafBytes);
    }
  }
  return concatBytes(pieces, size);
}

/**
 * Verifies a slice against the Bao hash and returns content bytes [start, start + count), capped
 * at the end of the content: what `bao decode-slice hash start count` prints. Throws an
 * IntegrityError if any node on the way does not match, if the slice is short, or if bytes
 * follow its last node. The returned length is trustworthy: the slice must reach the final
 * chunk whenever the range does.
 */
export function baoDecodeSlice(
  slice: Uint8Array,
  hash: Uint8Array | string,
  start: number,
  count: number,
  opts?: BaoTreeOpts,
): Uint8Array {
  slice = aUint8Array(slice, 'slice');
  const want = baoHash(hash);
  anumber(start, 'start');
  anumber(count, 'count');
  const leafBytes = resolveLeafBytes(opts);
  const verifier = new TreeVerifier(want, leafBytes, { start, count });
  const cursor = new ByteCursor(slice, 'slice', want);
  const end = start + count;
  const pieces: Uint8Array[] = [];
  let total = 0;
  verifyInMemory(verifier, cursor, cursor, {
    space: (_at, len) => new Uint8Array(len),
    verified: (at, bytes) => {
      // Chunks at the edges hold bytes outside the request: verified whole, returned in part.
      const piece = bytes.subarray(Math.max(0, start - at), Math.max(0, Math.min(bytes.length, end - at)));
      pieces.push(piece);
      total += piece.length;
    },
  });
  return concatBytes(pieces, total);
}
