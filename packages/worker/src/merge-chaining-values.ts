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
import { mergeSubtreesNonRoot, mergeSubtreesRoot, Mode } from '@blake3-web/core/hazmat';

/** The chaining-value stack over subtrees added in order: O(log n) values. */
export class ChainingValueStack {
  readonly #mode: Mode;
  readonly #cvStack: Uint8Array[] = [];
  #added = 0;

  /** `mode`: the hash's mode, resolved once for every merge; its dkLen is the root's length. */
  constructor(mode: Mode = new Mode()) {
    this.#mode = mode;
  }

  /** Adds the chaining value of the next subtree; never the last subtree of the input. */
  addSubtreeChainingValue(cv: Uint8Array): void {
    let total = ++this.#added;
    let newCv = cv;
    while ((total & 1) === 0) {
      newCv = mergeSubtreesNonRoot(this.#cvStack.pop()!, newCv, this.#mode);
      total /= 2;
    }
    this.#cvStack.push(newCv);
  }

  /** The root hash (the mode's dkLen bytes), given the last subtree's chaining value; at least one subtree must have been added. */
  finalize(lastCv: Uint8Array): Uint8Array {
    if (this.#cvStack.length === 0)
      throw new RangeError(
        'finalize needs at least two subtrees: a single subtree is the whole input and is hashed directly',
      );
    let right = lastCv;
    for (let i = this.#cvStack.length - 1; i >= 1; i--)
      right = mergeSubtreesNonRoot(this.#cvStack[i], right, this.#mode);
    return mergeSubtreesRoot(this.#cvStack[0], right, this.#mode);
  }
}

/**
 * Feeds chaining values that arrive in any order to a ChainingValueStack in subtree order.
 * Values that arrive before their turn wait here: at most `window` of them (32 bytes each), as a
 * value further ahead than that is refused.
 */
export class InOrderMerger {
  readonly #stack: ChainingValueStack;
  readonly #count: number;
  readonly #window: number;
  readonly #early = new Map<number, Uint8Array>();
  #next = 0;
  #last: Uint8Array | undefined;

  constructor(count: number, window: number, mode: Mode = new Mode()) {
    if (!Number.isSafeInteger(count) || count < 2)
      throw new RangeError(`count must be an integer of at least 2, got ${count}`);
    if (!Number.isSafeInteger(window) || window < 1)
      throw new RangeError(`window must be a positive integer, got ${window}`);
    this.#count = count;
    this.#window = window;
    this.#stack = new ChainingValueStack(mode);
  }

  /** Index of the first subtree whose value has not been merged yet. */
  get next(): number {
    return this.#next;
  }

  get done(): boolean {
    return this.#last !== undefined;
  }

  /** Accepts subtree `index`'s chaining value; each index exactly once, less than `window` ahead of `next`. */
  accept(index: number, cv: Uint8Array): void {
    if (
      !Number.isSafeInteger(index) ||
      index < this.#next ||
      index >= Math.min(this.#count, this.#next + this.#window) ||
      this.#early.has(index)
    ) {
      throw new RangeError(
        `index must be a subtree not merged yet, below ${Math.min(this.#count, this.#next + this.#window)}, got ${index}`,
      );
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
  finalize(): Uint8Array {
    if (this.#last === undefined)
      throw new RangeError(`finalize needs all ${this.#count} subtrees, ${this.#next} merged so far`);
    return this.#stack.finalize(this.#last);
  }
}
