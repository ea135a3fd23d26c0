import { concatBytes } from './_concat.js';
import { assertBytes, baoHash, resolveLeafBytes, type BaoTreeOpts } from './_options.js';
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
  assertBytes(encoded, 'encoded');
  const want = baoHash(hash);
  const leafBytes = resolveLeafBytes(opts);
  const outboard = opts.outboard;
  if (outboard !== undefined) assertBytes(outboard, 'opts.outboard');
  const tree = new ByteCursor(outboard ?? encoded, outboard ? 'outboard' : 'encoding', want);
  const content = outboard ? new ByteCursor(encoded, 'content', want) : tree;
  const verifier = new TreeVerifier(want, leafBytes);
  // Joined at the end rather than sized from the header, which is not trusted before the final
  // chunk verifies (Bao spec, "Decoder").
  const pieces: Uint8Array[] = [];
  let total = 0;
  verifyInMemory(verifier, tree, content, (_start, bytes) => {
    pieces.push(bytes);
    total += bytes.length;
  });
  return concatBytes(pieces, total);
}
