import { aUint8Array } from '../_assert.js';
import { baoHash, resolveLeafBytes, type BaoTreeOpts } from './_options.js';
import { TreeVerifier } from './_tree-verifier.js';
import { ByteCursor, verifyInMemory } from './_verify-in-memory.js';

export interface BaoDecodeOpts extends BaoTreeOpts {
  /** The outboard encoding: the first argument is then the content itself. */
  outboard?: Uint8Array;
}

/**
 * Verifies a whole Bao encoding against `hash` and returns the content: what `bao decode`
 * does. Throws an IntegrityError on any mismatch, a short encoding, or bytes after the end (the
 * reference decoder ignores trailing bytes; nothing it encodes has any).
 */
export function baoDecode(encoded: Uint8Array, hash: Uint8Array | string, opts: BaoDecodeOpts = {}): Uint8Array {
  encoded = aUint8Array(encoded, 'encoded');
  const want = baoHash(hash);
  const leafBytes = resolveLeafBytes(opts);
  const outboard = opts.outboard === undefined ? undefined : aUint8Array(opts.outboard, 'opts.outboard');
  const tree = new ByteCursor(outboard ?? encoded, outboard ? 'outboard' : 'encoding', want);
  const content = outboard ? new ByteCursor(encoded, 'content', want) : tree;
  const verifier = new TreeVerifier(want, leafBytes);
  // The output is sized from the header, which is not trusted before the final chunk verifies
  // (Bao spec, "Decoder"), so never beyond the content bytes actually given: verified content
  // comes from the input, so it always fits, and an encoding that claims more fails anyway.
  let out: Uint8Array | undefined;
  const output = (): Uint8Array => (out ??= new Uint8Array(Math.min(verifier.claimedLength, encoded.length)));
  verifyInMemory(verifier, tree, content, {
    space: (start, len) => output().subarray(start, start + len),
    verified: (start, bytes) => {
      const o = output();
      // Subtrees were assembled in place; single leaves are views of the input.
      if (bytes.buffer !== o.buffer) o.set(bytes, start);
    },
  });
  // Done means the final chunk verified, so the header's length is the content's.
  return output();
}
