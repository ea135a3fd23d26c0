import { bytesToHex } from '@blake3-web/core';
import { IntegrityError } from '../integrity-error.js';
import { digestsEqual } from '../verify-stream.js';
import { leafChainingValue, parentChainingValue } from './_node-hash.js';
import { CHUNK_LEN, CV_LEN, HEADER_LEN, leafCount, leftSubtreeBytes, PARENT_LEN, preOrder, readHeader, sliceRange, type TreeNode } from './tree-shape.js';

/** What the verifier needs next, and from where: tree bytes (header, parents) or content. */
export type Need =
  | { kind: 'header'; bytes: typeof HEADER_LEN }
  | { kind: 'parent'; bytes: typeof PARENT_LEN; start: number; len: number }
  /** `bytes` of content from `start`; `parents` bytes of the subtree's parents come first (batches). */
  | { kind: 'content'; bytes: number; start: number; parents: number }
  | { kind: 'done' };

export interface VerifierOpts {
  leafBytes: number;
  /** Verify subtrees of up to this many bytes as one unit (one subtree hash); 0 for leaf by leaf. */
  batchBytes: number;
  /** For slices: the content range whose leaves are read, from the requested start and count. */
  range?: { start: number; count: number };
}

/**
 * The Bao decoder's state (Bao spec, "Decoder"): a pre-order walk of the tree with a stack of
 * expected chaining values, one per pending subtree, so memory is the tree height. Every node is
 * checked against the value its parent committed to before anything under it is used; the root
 * is checked against the hash. A changed length header makes the walk expect a different shape,
 * which fails at the latest at the final leaf: its size or position (the chunk counter) no longer
 * matches, and chunks and parents are domain-separated. That is the spec's "final chunk
 * requirement": the length is trusted only once the final leaf verifies.
 *
 * The verifier does no IO: drivers ask `need`, supply the bytes, and receive verified content.
 */
export class TreeVerifier {
  readonly #hash: Uint8Array;
  readonly #opts: VerifierOpts;
  #walk: Generator<TreeNode, void, undefined> | undefined;
  #node: TreeNode | undefined;
  /** Expected chaining values of pending subtrees; the top is the next subtree in pre-order. */
  readonly #stack = new Uint8Array(CV_LEN * 64);
  #depth = 0;
  #contentLen = -1;
  #need: Need = { kind: 'header', bytes: HEADER_LEN };

  constructor(hash: Uint8Array, opts: VerifierOpts) {
    this.#hash = hash;
    this.#opts = opts;
  }

  get need(): Need {
    return this.#need;
  }

  /** The content length from the header: unverified until `need` is 'done'. */
  get claimedLength(): number {
    return this.#contentLen;
  }

  /** The slice range actually wanted, once the header is known (Bao spec, "Slice Format"). */
  get range(): { start: number; end: number } {
    const r = this.#opts.range;
    return r === undefined ? { start: 0, end: this.#contentLen } : sliceRange(this.#contentLen, r.start, r.count);
  }

  header(bytes: Uint8Array): void {
    const claimed = readHeader(bytes);
    if (claimed > BigInt(Number.MAX_SAFE_INTEGER)) {
      // No real content is this long; the header is the only thing that says so, and it is unverified.
      throw new IntegrityError(bytesToHex(this.#hash), '', `Bao length header claims ${claimed} bytes, more than 2^53 - 1: the encoding is corrupt`);
    }
    this.#contentLen = Number(claimed);
    const { start, end } = this.range;
    const batchBytes = this.#opts.batchBytes > this.#opts.leafBytes ? this.#opts.batchBytes : 0;
    this.#walk = preOrder(this.#contentLen, { leafBytes: this.#opts.leafBytes, rangeStart: start, rangeEnd: end, batchBytes });
    this.#stack.set(this.#hash, 0);
    this.#depth = 1;
    this.#advance();
  }

  /** Checks a parent node against the value its parent committed to. */
  parent(node: Uint8Array): void {
    const { start, len, root } = this.#node!;
    const expected = this.#pop();
    const actual = parentChainingValue(node, root);
    if (!digestsEqual(actual, expected)) throw mismatch(expected, actual, `parent node of content bytes ${start}..${start + len}`);
    this.#push(node.subarray(CV_LEN, PARENT_LEN));
    this.#push(node.subarray(0, CV_LEN));
    this.#advance();
  }

  /**
   * Checks content: one leaf, or a batch (a whole subtree) given its parents in pre-order and its
   * content. A batch's parents are each checked against the value above them and its content is
   * hashed once as a subtree, which checks every leaf without hashing the leaves one by one.
   */
  content(content: Uint8Array, parents?: Uint8Array): void {
    const { kind, start, len, root } = this.#node!;
    const expected = this.#pop();
    if (kind === 'batch') this.#checkBatchParents(parents!, start, len, root, expected);
    // A batch is an aligned subtree, so its chaining value is computed like a leaf's.
    const actual = leafChainingValue(content, start, root);
    if (!digestsEqual(actual, expected)) throw mismatch(expected, actual, `${kind === 'batch' ? 'subtree' : this.#opts.leafBytes === CHUNK_LEN ? 'chunk' : 'chunk group'} of content bytes ${start}..${start + len}`);
    this.#advance();
  }

  #checkBatchParents(parents: Uint8Array, start: number, len: number, root: boolean, expected: Uint8Array): void {
    let pos = 0;
    const leafBytes = this.#opts.leafBytes;
    const check = (s: number, n: number, isRoot: boolean, want: Uint8Array): void => {
      if (n <= leafBytes) return;
      const node = parents.subarray(pos, pos + PARENT_LEN);
      pos += PARENT_LEN;
      const actual = parentChainingValue(node, isRoot);
      if (!digestsEqual(actual, want)) throw mismatch(want, actual, `parent node of content bytes ${s}..${s + n}`);
      const left = leftSubtreeBytes(n);
      check(s, left, false, node.subarray(0, CV_LEN));
      check(s + left, n - left, false, node.subarray(CV_LEN));
    };
    check(start, len, root, expected);
  }

  #advance(): void {
    for (;;) {
      const step = this.#walk!.next();
      if (step.done) {
        this.#node = undefined;
        this.#need = { kind: 'done' };
        return;
      }
      const node = (this.#node = step.value);
      if (node.kind === 'skip') {
        // A slice leaves this subtree out: its committed value is not needed.
        this.#pop();
        continue;
      }
      if (node.kind === 'parent') this.#need = { kind: 'parent', bytes: PARENT_LEN, start: node.start, len: node.len };
      else {
        const parents = node.kind === 'batch' ? PARENT_LEN * (leafCount(node.len, this.#opts.leafBytes) - 1) : 0;
        this.#need = { kind: 'content', bytes: node.len, start: node.start, parents };
      }
      return;
    }
  }

  #pop(): Uint8Array {
    this.#depth--;
    return this.#stack.slice(this.#depth * CV_LEN, (this.#depth + 1) * CV_LEN);
  }

  #push(cv: Uint8Array): void {
    this.#stack.set(cv, this.#depth * CV_LEN);
    this.#depth++;
  }
}

function mismatch(expected: Uint8Array, actual: Uint8Array, what: string): IntegrityError {
  const e = bytesToHex(expected);
  const a = bytesToHex(actual);
  return new IntegrityError(e, a, `Bao mismatch at the ${what}: expected ${e}, got ${a}`);
}
