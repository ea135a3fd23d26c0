import { IntegrityError } from '../integrity-error.js';
import type { TreeVerifier } from './_tree-verifier.js';
import { encodedSubtreeLen, HEADER_LEN, outboardSubtreeLen, PARENT_LEN, visitSubtree } from './tree-shape.js';

/** Reads exact byte counts from an encoding in memory; running short is an IntegrityError. */
export class ByteCursor {
  #pos = 0;
  readonly bytes: Uint8Array;
  readonly name: string;
  readonly hash: Uint8Array;
  constructor(bytes: Uint8Array, name: string, hash: Uint8Array) {
    this.bytes = bytes;
    this.name = name;
    this.hash = hash;
  }

  get remaining(): number {
    return this.bytes.length - this.#pos;
  }

  take(n: number): Uint8Array {
    if (n > this.remaining) {
      throw IntegrityError.corrupt(
        this.hash,
        `${this.name} ended early: ${n} more bytes needed at byte ${this.#pos}, ${this.remaining} left`,
      );
    }
    return this.bytes.subarray(this.#pos, (this.#pos += n));
  }

  /** Bytes after the end of the tree: never produced by an encoder, so corruption or a wrong hash. */
  assertEnd(): void {
    if (this.remaining > 0) {
      throw IntegrityError.corrupt(this.hash, `${this.name} has ${this.remaining} bytes after the end of its Bao tree`);
    }
  }
}

/** Where verified content goes. */
export interface ContentSink {
  /** A place for `len` bytes of content from content byte `start`, filled before they are checked. */
  space(start: number, len: number): Uint8Array;
  /** `bytes`, content from content byte `start`, matched the hash: a view of the input or of a `space`. */
  verified(start: number, bytes: Uint8Array): void;
}

/**
 * Runs a verifier over encodings in memory: `tree` gives the header and parents, `content` the
 * content (the same cursor for a combined encoding or a slice). Subtrees that are wholly there
 * are checked at once.
 */
export function verifyInMemory(verifier: TreeVerifier, tree: ByteCursor, content: ByteCursor, sink: ContentSink): void {
  const combined = tree === content;
  const leafBytes = verifier.leafBytes;
  for (;;) {
    const { kind, start, len } = verifier;
    if (kind === 'done') break;
    if (kind === 'header') verifier.header(tree.take(HEADER_LEN));
    else if (kind === 'leaf') {
      const bytes = content.take(len);
      verifier.leaf(bytes);
      sink.verified(start, bytes);
    } else if (!verifier.wholeSubtree) verifier.parent(tree.take(PARENT_LEN));
    else if (combined && tree.remaining >= encodedSubtreeLen(len, leafBytes)) {
      // Separate the interleaved parents and content (Bao spec, "Combined Encoding Format").
      const parents = new Uint8Array(outboardSubtreeLen(len, leafBytes));
      const bytes = sink.space(start, len);
      let p = 0;
      let c = 0;
      visitSubtree(
        len,
        leafBytes,
        () => parents.set(tree.take(PARENT_LEN), (p += PARENT_LEN) - PARENT_LEN),
        (n) => bytes.set(tree.take(n), (c += n) - n),
      );
      let done = 0;
      verifier.subtree(parents, bytes, (n) => sink.verified(start + done, bytes.subarray(done, (done += n))));
    } else if (!combined && tree.remaining >= outboardSubtreeLen(len, leafBytes) && content.remaining >= len) {
      const parents = tree.take(outboardSubtreeLen(len, leafBytes));
      const bytes = content.take(len);
      let done = 0;
      verifier.subtree(parents, bytes, (n) => sink.verified(start + done, bytes.subarray(done, (done += n))));
    } else verifier.parent(tree.take(PARENT_LEN));
  }
  tree.assertEnd();
  if (!combined) content.assertEnd();
}
