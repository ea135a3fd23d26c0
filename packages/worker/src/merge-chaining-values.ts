/**
 * Merging subtree chaining values into the root, on the thread that asked for the hash.
 *
 * The subtrees of a plan (plan-subtrees.ts) are equal power-of-two leaves with a possibly shorter
 * last one, which is exactly the situation of chunks in BLAKE3's incremental hasher, so the same
 * chaining-value stack applies: when subtree number n (1-based) is added, one parent is merged
 * per trailing zero bit of n. As in the reference implementation, a subtree is added to the
 * stack only once a later one exists; the last one stays out, and finalizing folds the stack
 * onto it from the top, with the ROOT flag on the final merge. Merging the last subtree eagerly
 * would build a tree of the wrong shape whenever the number of subtrees is a power of two.
 */
import type { Blake3Opts } from '@blake3-web/core';
import { mergeSubtreesNonRoot, mergeSubtreesRoot, type SubtreeOpts } from '@blake3-web/core/hazmat';

/** The chaining-value stack over subtrees added in order: O(log n) values. */
export class ChainingValueStack {
  readonly #opts: SubtreeOpts;
  readonly #cvStack: Uint8Array[] = [];
  #added = 0;

  constructor(opts: SubtreeOpts = {}) {
    this.#opts = opts;
  }

  /** Values on the stack now: one per set bit of the number of subtrees added. */
  get depth(): number {
    return this.#cvStack.length;
  }

  /** Adds the chaining value of the next subtree; never the last subtree of the input. */
  addSubtreeChainingValue(cv: Uint8Array): void {
    let total = ++this.#added;
    let newCv = cv;
    while ((total & 1) === 0) {
      newCv = mergeSubtreesNonRoot(this.#cvStack.pop()!, newCv, this.#opts);
      total /= 2;
    }
    this.#cvStack.push(newCv);
  }

  /** The root hash (`dkLen` bytes), given the last subtree's chaining value; at least one subtree must have been added. */
  finalize(lastCv: Uint8Array, dkLen?: number): Uint8Array {
    if (this.#cvStack.length === 0) throw new RangeError('finalize needs at least two subtrees: a single subtree is the whole input and is hashed directly');
    const right = this.#foldDownTo(1, lastCv);
    const rootOpts: Blake3Opts = dkLen === undefined ? this.#opts : { ...this.#opts, dkLen };
    return mergeSubtreesRoot(this.#cvStack[0], right, rootOpts);
  }

  /**
   * The chaining value of everything added plus the last subtree, when that is itself a subtree
   * of a larger input (a worker's task split into read pieces): no ROOT flag anywhere.
   */
  finalizeNonRoot(lastCv: Uint8Array): Uint8Array {
    return this.#foldDownTo(0, lastCv);
  }

  /** Merges the stack's values from the top down to index `bottom` onto `right`. */
  #foldDownTo(bottom: number, right: Uint8Array): Uint8Array {
    let cv = right;
    for (let i = this.#cvStack.length - 1; i >= bottom; i--) cv = mergeSubtreesNonRoot(this.#cvStack[i], cv, this.#opts);
    return cv;
  }
}

/**
 * Feeds chaining values that arrive in any order to a ChainingValueStack in subtree order.
 * Values that arrive before their turn wait here; the pool never runs further ahead than its
 * window, so at most `window` values (32 bytes each) ever wait.
 */
export class InOrderMerger {
  readonly #stack: ChainingValueStack;
  readonly #count: number;
  readonly #early = new Map<number, Uint8Array>();
  #next = 0;
  #last: Uint8Array | undefined;

  constructor(count: number, opts: SubtreeOpts = {}) {
    if (!Number.isSafeInteger(count) || count < 2) throw new RangeError(`count must be an integer of at least 2, got ${count}`);
    this.#count = count;
    this.#stack = new ChainingValueStack(opts);
  }

  /** Index of the first subtree whose value has not been merged yet. */
  get next(): number {
    return this.#next;
  }

  /** Values that arrived ahead of their turn and are waiting. */
  get waiting(): number {
    return this.#early.size;
  }

  get done(): boolean {
    return this.#last !== undefined;
  }

  /** Accepts subtree `index`'s chaining value; each index exactly once. */
  accept(index: number, cv: Uint8Array): void {
    if (!Number.isSafeInteger(index) || index < this.#next || index >= this.#count || this.#early.has(index)) {
      throw new RangeError(`index must be a subtree not merged yet, below ${this.#count}, got ${index}`);
    }
    this.#early.set(index, cv);
    for (let value = this.#early.get(this.#next); value !== undefined; value = this.#early.get(this.#next)) {
      this.#early.delete(this.#next);
      if (this.#next === this.#count - 1) this.#last = value;
      else this.#stack.addSubtreeChainingValue(value);
      this.#next++;
    }
  }

  /** The root hash once every subtree's value has been accepted. */
  finalize(dkLen?: number): Uint8Array {
    if (this.#last === undefined) throw new RangeError(`finalize needs all ${this.#count} subtrees, ${this.#next} merged so far`);
    return this.#stack.finalize(this.#last, dkLen);
  }
}
