import { blake3 } from '@blake3-web/core';
import { hashSubtrees } from '@blake3-web/core/hazmat';
import { aUint8Array } from '../_assert.js';
import { resolveLeafBytes, type BaoTreeOpts } from './_options.js';
import { rootHash, treeLevels, writePreOrder } from './_tree-levels.js';
import { HEADER_LEN, leafCount, PARENT_LEN, writeHeader } from './tree-shape.js';

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

  const count = leafCount(data.length, leafBytes);
  if (count === 1) {
    if (!outboard) encoded.set(data, HEADER_LEN);
    return { hash: blake3(data), encoded };
  }
  // Every leaf's chaining value in one pass through the SIMD kernel, every level of parents in
  // one batch each, then the pre-order layout from those values.
  const levels = treeLevels(hashSubtrees(data, 0, leafBytes), count);
  writePreOrder(levels, count, encoded, HEADER_LEN, (first, n, pos) => {
    if (outboard) return pos;
    const run = data.subarray(first * leafBytes, (first + n) * leafBytes);
    encoded.set(run, pos);
    return pos + run.length;
  });
  const hash = rootHash(levels);
  return { hash, encoded };
}
