import { bytesToHex, constantTimeEqual } from '@blake3-web/core';
import { hashSubtrees, leftSubtreeLen, mergeManySubtreesNonRoot } from '@blake3-web/core/hazmat';
import { IntegrityError } from '../integrity-error.js';
import { leafChainingValue, parentChainingValue } from './_node-hash.js';
import { CHUNK_LEN, CV_LEN, PARENT_LEN, readLengthHeader, sliceRange, wantedSubtree } from './tree-shape.js';

/** The next node in the encoding, which the driver reads and hands to the matching method. */
export type NodeKind = 'header' | 'parent' | 'leaf' | 'done';

/** Deeper than any tree of up to 2^53 bytes (43 levels of parents above the chunks). */
const MAX_DEPTH = 64;

/**
 * The Bao decoder's state (Bao spec, "Decoder"): a pre-order walk of the tree with a stack of
 * the chaining values that parents committed to, one per pending subtree, so memory is the tree
 * height. Every node is checked against the value above it before anything under it is used;
 * the root against the hash. A changed length header makes the walk expect another shape, which
 * fails at the latest at the final leaf: its size or position (the chunk counter) no longer
 * matches, and chunks and parents are domain-separated. That is the spec's "final chunk
 * requirement": the length is trusted only once the final leaf verifies.
 *
 * The verifier does no IO. A driver reads `kind` (with `start` and `len`), supplies the bytes
 * of that node, and gets verified content back.
 */
export class TreeVerifier {
  /** What the encoding holds next. */
  kind: NodeKind = 'header';
  /** The content range under the next node: a parent's whole subtree, or a leaf. */
  start = 0;
  len = 0;
  /**
   * For a parent: its subtree lies wholly in the wanted range, so `subtree()` may take all of it
   * at once instead of node by node.
   */
  wholeSubtree = false;
  readonly leafBytes: number;

  readonly #hash: Uint8Array;
  readonly #range: { start: number; count: number } | undefined;
  #rangeStart = 0;
  #rangeEnd = 0;
  #contentLen = -1;
  /** Pending subtrees, the next one on top: content start, length, committed chaining value. */
  readonly #starts = new Float64Array(MAX_DEPTH);
  readonly #lens = new Float64Array(MAX_DEPTH);
  readonly #cvs = new Uint8Array(MAX_DEPTH * CV_LEN);
  readonly #cvWords = new Uint32Array(this.#cvs.buffer);
  #depth = 0;
  /** The next node is the root: finalized with the ROOT flag, checked against the hash itself. */
  #atRoot = false;

  /** `range`: for slices, the requested start and count (Bao spec, "Slice Format"). */
  constructor(hash: Uint8Array, leafBytes: number, range?: { start: number; count: number }) {
    this.#hash = hash;
    this.leafBytes = leafBytes;
    this.#range = range;
  }

  /** The content length the header claims (-1 before it): trusted only once `kind` is 'done'. */
  get claimedLength(): number {
    return this.#contentLen;
  }

  header(bytes: Uint8Array): void {
    const len = (this.#contentLen = readLengthHeader(bytes, (why) =>
      IntegrityError.corrupt(this.#hash, `the Bao encoding ${why}: it is corrupt`),
    ));
    const range =
      this.#range === undefined ? { start: 0, end: len } : sliceRange(len, this.#range.start, this.#range.count);
    this.#rangeStart = range.start;
    this.#rangeEnd = range.end;
    this.#starts[0] = 0;
    this.#lens[0] = len;
    this.#cvs.set(this.#hash, 0);
    this.#depth = 1;
    this.#atRoot = true;
    this.#advance();
  }

  /** Checks a parent node (64 bytes) against the value above it. */
  parent(node: Uint8Array): void {
    const top = this.#depth - 1;
    const actual = parentChainingValue(node, this.#atRoot);
    this.#check(actual, top, 'parent node');
    this.#atRoot = false;
    const { start, len } = this;
    const left = leftSubtreeLen(len);
    // The right subtree takes this node's place on the stack; the left goes on top of it.
    this.#starts[top] = start + left;
    this.#lens[top] = len - left;
    this.#cvs.set(node.subarray(CV_LEN, 2 * CV_LEN), top * CV_LEN);
    this.#starts[top + 1] = start;
    this.#lens[top + 1] = left;
    this.#cvs.set(node.subarray(0, CV_LEN), (top + 1) * CV_LEN);
    this.#depth++;
    this.#advance();
  }

  /** Checks a leaf's content against the value above it. */
  leaf(content: Uint8Array): void {
    const actual = leafChainingValue(content, this.start, this.#atRoot);
    this.#check(actual, this.#depth - 1, this.leafBytes === CHUNK_LEN ? 'chunk' : 'chunk group');
    this.#atRoot = false;
    this.#depth--;
    this.#advance();
  }

  /**
   * Checks the whole subtree of the parent that is next (`wholeSubtree` must be true): its
   * parents in pre-order, and its content. When everything matches, that costs one subtree hash
   * of the content, which lets the core hash several chunks at a time, plus one compression per
   * parent. When something does not, the subtree is checked again node by node, so the error
   * and the content verified before it are exactly those of reading the nodes one at a time.
   * `verified(n)` reports content verified, in order from the subtree's start.
   */
  subtree(parents: Uint8Array, content: Uint8Array, verified: (n: number) => void): void {
    const top = this.#depth - 1;
    if (this.#subtreeMatches(parents, content, top)) {
      this.#atRoot = false;
      this.#depth--;
      verified(content.length);
      this.#advance();
      return;
    }
    let p = 0;
    let c = 0;
    while (this.#depth > top) {
      if (this.kind === 'parent') {
        this.parent(parents.subarray(p, (p += 64)));
      } else {
        const n = this.len;
        this.leaf(content.subarray(c, (c += n)));
        verified(n);
      }
    }
  }

  #subtreeMatches(parents: Uint8Array, content: Uint8Array, top: number): boolean {
    const leafBytes = this.leafBytes;
    // Every leaf's chaining value in one pass (the core's SIMD kernel over all their chunks),
    // every parent's in another (8 per SIMD step); only the root needs its own finalization.
    const leaves = hashSubtrees(content, this.start, leafBytes);
    const root = this.#atRoot;
    const inner = parents.length > (root ? PARENT_LEN : 0) ? mergeManySubtreesNonRoot(parents) : parents;
    const rootCv = root ? parentChainingValue(parents.subarray(0, PARENT_LEN), true) : undefined;
    // Each node against the value its parent (or the stack) committed to, in pre-order, a word
    // at a time; the differences are gathered, not returned early, so the comparison takes the
    // same time wherever they are.
    const leafWords = words(leaves);
    const innerWords = words(inner);
    const parentWords = words(parents);
    let diff = 0;
    let p = 0;
    let l = 0;
    /** `full`: the subtree is a power of two leaves, so each half is too. */
    const walk = (n: number, full: boolean, want: Uint32Array, at: number): void => {
      if (n <= leafBytes) {
        diff |= differ(leafWords, 8 * l++, want, at);
        return;
      }
      const i = p++;
      diff |= i === 0 && rootCv ? differ(words(rootCv), 0, want, at) : differ(innerWords, 8 * i, want, at);
      const left = full ? n / 2 : leftSubtreeLen(n);
      walk(left, true, parentWords, 16 * i);
      walk(n - left, full, parentWords, 16 * i + 8);
    };
    const len = this.len;
    walk(len, len % leafBytes === 0 && ((len / leafBytes) & (len / leafBytes - 1)) === 0, this.#cvWords, 8 * top);
    return diff === 0;
  }

  #check(actual: Uint8Array, top: number, what: string): void {
    if (equalAt(actual, this.#cvs, top * CV_LEN)) return;
    const e = bytesToHex(this.#cvs.subarray(top * CV_LEN, (top + 1) * CV_LEN));
    const a = bytesToHex(actual);
    const where = `${what} of content bytes ${this.start}..${this.start + this.len}`;
    throw new IntegrityError(e, a, `Bao mismatch at the ${where}: expected ${e}, got ${a}`);
  }

  /** Moves to the next node a reader needs, passing over subtrees outside the wanted range. */
  #advance(): void {
    const leafBytes = this.leafBytes;
    while (this.#depth > 0) {
      const start = this.#starts[this.#depth - 1];
      const len = this.#lens[this.#depth - 1];
      if (!wantedSubtree(this.#contentLen, start, len, this.#rangeStart, this.#rangeEnd)) {
        this.#depth--;
        continue;
      }
      this.start = start;
      this.len = len;
      this.kind = len <= leafBytes ? 'leaf' : 'parent';
      this.wholeSubtree = start >= this.#rangeStart && start + len <= this.#rangeEnd;
      return;
    }
    this.kind = 'done';
  }
}

/** Non-zero when the chaining values at words `a[i]` and `b[j]` differ; in time independent of where. */
function differ(a: Uint32Array, i: number, b: Uint32Array, j: number): number {
  let d = 0;
  for (let k = 0; k < 8; k++) d |= a[i + k] ^ b[j + k];
  return d;
}

/** The bytes as words, in place when aligned (equality does not depend on byte order). */
function words(bytes: Uint8Array): Uint32Array {
  const own = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  return new Uint32Array(own.buffer, own.byteOffset, own.length >> 2);
}

/** Whether `actual` equals the chaining value at `at` in `stack`, compared in constant time. */
function equalAt(actual: Uint8Array, stack: Uint8Array, at: number): boolean {
  return constantTimeEqual(actual, stack.subarray(at, at + CV_LEN));
}
