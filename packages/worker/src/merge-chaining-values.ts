/**
 * Merging subtree chaining values into the root, on the thread that asked for the hash.
 *
 * The subtrees of a plan (plan-subtrees.ts) are equal power-of-two subtrees with a possibly
 * shorter last one, each starting at a multiple of its length: exactly what core's hazmat
 * `ChainingValueStack` takes, in input order. It merges them by the reference implementation's
 * stack rule and finalizes the root in the job's mode and length (see its documentation for why
 * the last subtree stays apart until then). This module only puts values that arrive in any
 * order back in order.
 */
import { ChainingValueStack, Mode } from '@blake3-web/core/hazmat';
import { subtreeRange, type SubtreePlan } from './plan-subtrees.js';

/**
 * Feeds chaining values that arrive in any order to a ChainingValueStack in subtree order.
 * Values that arrive before their turn wait here: at most `window` of them (32 bytes each), as a
 * value further ahead than that is refused.
 */
export class InOrderMerger {
  readonly #stack: ChainingValueStack;
  readonly #plan: SubtreePlan;
  readonly #window: number;
  readonly #early = new Map<number, Uint8Array>();
  #next = 0;

  /** `mode`: the hash's mode, resolved once for every merge; its dkLen is the root's length. */
  constructor(plan: SubtreePlan, window: number, mode: Mode = new Mode()) {
    if (!Number.isSafeInteger(plan.count) || plan.count < 2)
      throw new RangeError(`plan.count must be an integer of at least 2, got ${plan.count}`);
    if (!Number.isSafeInteger(window) || window < 1)
      throw new RangeError(`window must be a positive integer, got ${window}`);
    this.#plan = plan;
    this.#window = window;
    this.#stack = new ChainingValueStack(mode);
  }

  /** Index of the first subtree whose value has not been merged yet. */
  get next(): number {
    return this.#next;
  }

  get done(): boolean {
    return this.#next === this.#plan.count;
  }

  /** Accepts subtree `index`'s chaining value; each index exactly once, less than `window` ahead of `next`. */
  accept(index: number, cv: Uint8Array): void {
    const below = Math.min(this.#plan.count, this.#next + this.#window);
    if (!Number.isSafeInteger(index) || index < this.#next || index >= below || this.#early.has(index))
      throw new RangeError(`index must be a subtree not merged yet, below ${below}, got ${index}`);
    if (!(cv instanceof Uint8Array) || cv.length !== 32)
      throw new RangeError(`cv must be a 32-byte chaining value, got ${cv?.length ?? typeof cv} bytes`);
    this.#early.set(index, cv);
    for (let value = this.#early.get(this.#next); value !== undefined; value = this.#early.get(this.#next)) {
      this.#early.delete(this.#next);
      const { start, end } = subtreeRange(this.#plan, this.#next);
      this.#stack.push(value, start, end - start);
      this.#next++;
    }
  }

  /** The root hash once every subtree's value has been accepted. */
  finalize(): Uint8Array {
    if (!this.done)
      throw new RangeError(`finalize needs all ${this.#plan.count} subtrees, ${this.#next} merged so far`);
    return this.#stack.digest();
  }
}
