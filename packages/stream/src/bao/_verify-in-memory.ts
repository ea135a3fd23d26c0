import { bytesToHex } from '@blake3-web/core';
import { IntegrityError } from '../integrity-error.js';
import type { TreeVerifier } from './_tree-verifier.js';
import { splitEncodedSubtree } from './tree-shape.js';

/** Reads exact byte counts from an encoding in memory; running short is an IntegrityError. */
export class ByteCursor {
  #pos = 0;
  constructor(
    readonly bytes: Uint8Array,
    readonly name: string,
    readonly hash: Uint8Array,
  ) {}

  get remaining(): number {
    return this.bytes.length - this.#pos;
  }

  take(n: number): Uint8Array {
    if (n > this.remaining) {
      throw new IntegrityError(bytesToHex(this.hash), '', `${this.name} ended early: ${n} more bytes needed at byte ${this.#pos}, ${this.remaining} left`);
    }
    return this.bytes.subarray(this.#pos, (this.#pos += n));
  }

  /** Bytes after the end of the tree: never produced by an encoder, so corruption or a wrong hash. */
  assertEnd(): void {
    if (this.remaining > 0) {
      throw new IntegrityError(bytesToHex(this.hash), '', `${this.name} has ${this.remaining} bytes after the end of its Bao tree`);
    }
  }
}

/**
 * Runs a verifier over encodings in memory: `tree` gives the header and parents, `content` the
 * content (the same cursor for a combined encoding or a slice). Calls `emit` with each verified
 * piece of content, in order.
 */
export function verifyInMemory(verifier: TreeVerifier, tree: ByteCursor, content: ByteCursor, leafBytes: number, emit: (start: number, bytes: Uint8Array) => void): void {
  for (;;) {
    const need = verifier.need;
    if (need.kind === 'done') break;
    if (need.kind === 'header') verifier.header(tree.take(need.bytes));
    else if (need.kind === 'parent') verifier.parent(tree.take(need.bytes));
    else if (need.parents === 0) {
      const bytes = content.take(need.bytes);
      verifier.content(bytes);
      emit(need.start, bytes);
    } else if (tree === content) {
      const { parents, content: bytes } = splitEncodedSubtree(tree.take(need.parents + need.bytes), need.bytes, leafBytes);
      verifier.content(bytes, parents);
      emit(need.start, bytes);
    } else {
      const parents = tree.take(need.parents);
      const bytes = content.take(need.bytes);
      verifier.content(bytes, parents);
      emit(need.start, bytes);
    }
  }
  tree.assertEnd();
  if (content !== tree) content.assertEnd();
}
