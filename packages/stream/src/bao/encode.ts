import { leafChainingValue, parentChainingValue } from './_node-hash.js';
import { aUint8Array } from '../_assert.js';
import { resolveLeafBytes, type BaoTreeOpts } from './_options.js';
import { HEADER_LEN, leafCount, leftSubtreeBytes, PARENT_LEN, writeHeader } from './tree-shape.js';

export interface BaoEncodeOpts extends BaoTreeOpts {
  /** Parents only, without the content (Bao spec, "Outboard Encoding Format"). Default false. */
  outboard?: boolean;
}

export interface BaoEncoded {
  /** The Bao hash: `blake3(content)`. */
  hash: Uint8Array;
  /** The combined encoding (header, then parents and content in pre-order), or the outboard. */
  encoded: Uint8Array;
}

/** Bytes of the combined encoding of `contentLen` bytes of content. */
export function baoEncodedSize(contentLen: number, opts?: BaoTreeOpts): number {
  return HEADER_LEN + contentLen + PARENT_LEN * (leafCount(contentLen, resolveLeafBytes(opts)) - 1);
}

/** Bytes of the outboard encoding of `contentLen` bytes of content. */
export function baoOutboardSize(contentLen: number, opts?: BaoTreeOpts): number {
  return HEADER_LEN + PARENT_LEN * (leafCount(contentLen, resolveLeafBytes(opts)) - 1);
}

/**
 * The Bao encoding of `data`, byte for byte what `bao encode` (or `bao encode --outboard`) of
 * the reference implementation writes, with the hash. Content in memory only: for content that
 * arrives as a stream, `BaoEncoder` builds the outboard with memory proportional to the outboard.
 *
 * @example
 * ```ts
 * const { hash, encoded } = baoEncode(bytes);
 * // serve `encoded`; clients check it with new BaoVerifyStream(hash)
 * ```
 */
export function baoEncode(data: Uint8Array, opts: BaoEncodeOpts = {}): BaoEncoded {
  aUint8Array(data, 'data');
  const leafBytes = resolveLeafBytes(opts);
  const outboard = opts.outboard ?? false;
  if (typeof outboard !== 'boolean') throw new TypeError(`opts.outboard must be a boolean, got ${typeof outboard}`);
  const size = outboard ? baoOutboardSize(data.length, opts) : baoEncodedSize(data.length, opts);
  const encoded = new Uint8Array(size);
  writeHeader(encoded, data.length);
  let pos = HEADER_LEN;

  // Pre-order: a parent's 64 bytes are reserved before its subtrees are written and filled in
  // once both children's chaining values are known. Recursion depth is the tree height (< 54).
  const encodeSubtree = (start: number, len: number, root: boolean): Uint8Array => {
    if (len <= leafBytes) {
      const leaf = data.subarray(start, start + len);
      if (!outboard) {
        encoded.set(leaf, pos);
        pos += len;
      }
      return leafChainingValue(leaf, start, root);
    }
    const node = encoded.subarray(pos, pos + PARENT_LEN);
    pos += PARENT_LEN;
    const left = leftSubtreeBytes(len);
    node.set(encodeSubtree(start, left, false), 0);
    node.set(encodeSubtree(start + left, len - left, false), 32);
    return parentChainingValue(node, root);
  };
  const hash = encodeSubtree(0, data.length, true);
  return { hash, encoded };
}
