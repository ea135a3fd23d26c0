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
  data = aUint8Array(data, 'data');
  const { outboard, leafBytes, size } = encodingOpts(data, opts);
  const encoded = new Uint8Array(size);
  return { hash: encode(data, encoded, outboard, leafBytes), encoded };
}

/**
 * `baoEncode` into memory the caller brings, which it may reuse from one encoding to the next
 * (no fresh array to allocate and touch): writes the encoding to the first
 * `baoEncodedSize(data.length, opts)` bytes of `out` (`baoOutboardSize` with `outboard`) and
 * returns the hash. `out` must be that long at least and must not overlap `data`.
 *
 * @example
 * ```ts
 * const out = new Uint8Array(baoEncodedSize(bytes.length));
 * const hash = baoEncodeInto(bytes, out);
 * ```
 */
export function baoEncodeInto(data: Uint8Array, out: Uint8Array, opts: BaoEncodeOpts = {}): Uint8Array {
  data = aUint8Array(data, 'data');
  out = aUint8Array(out, 'out');
  const { outboard, leafBytes, size } = encodingOpts(data, opts);
  if (out.length < size)
    throw new RangeError(
      `out must hold the ${size} bytes of the ${outboard ? 'outboard' : 'combined'} encoding of ${data.length} bytes, got ${out.length}`,
    );
  if (overlap(data, out))
    throw new RangeError('out must not overlap data: the encoding would overwrite content not yet read');
  return encode(data, out.subarray(0, size), outboard, leafBytes);
}

function encodingOpts(data: Uint8Array, opts: BaoEncodeOpts): { outboard: boolean; leafBytes: number; size: number } {
  const leafBytes = resolveLeafBytes(opts);
  const outboard = opts.outboard ?? false;
  if (typeof outboard !== 'boolean') throw new TypeError(`opts.outboard must be a boolean, got ${typeof outboard}`);
  const size = outboard ? baoOutboardSize(data.length, opts) : baoEncodedSize(data.length, opts);
  return { outboard, leafBytes, size };
}

/** Whether two views share any byte of memory. */
function overlap(a: Uint8Array, b: Uint8Array): boolean {
  return a.buffer === b.buffer && a.byteOffset < b.byteOffset + b.length && b.byteOffset < a.byteOffset + a.length;
}

/** Writes the encoding of `data` to `encoded` (exactly its size) and returns the hash. */
function encode(data: Uint8Array, encoded: Uint8Array, outboard: boolean, leafBytes: number): Uint8Array {
  writeHeader(encoded, data.length);
  const count = leafCount(data.length, leafBytes);
  if (count === 1) {
    if (!outboard) encoded.set(data, HEADER_LEN);
    return blake3(data);
  }
  // Every leaf's chaining value in one pass through the SIMD kernel, every level of parents in
  // one batch each, then the pre-order layout from those values.
  const levels = treeLevels(hashSubtrees(data, 0, leafBytes), count);
  writePreOrder(levels, count, encoded, HEADER_LEN, outboard ? undefined : data, leafBytes);
  return rootHash(levels);
}
