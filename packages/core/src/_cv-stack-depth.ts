import { TWO_POW_32 } from './_constants.js';

/**
 * How many chaining values a stack of complete subtrees holds once `chunks` chunks are merged as
 * far as they can be: one per set bit of the chunk count (the reference implementation's
 * `add_chunk_chaining_value`, which merges while the total is even; the Rust crate's
 * `merge_cv_stack` merges down to `total_chunks.count_ones()`). Every CV stack in the project
 * merges to this depth, and only before a push, never after: the last subtree stays apart until
 * more input shows it is not one of the root's children.
 *
 * `chunks` is a non-negative integer below 2^53.
 */
export function cvStackDepthOf(chunks: number): number {
  let c = 0;
  for (let w = chunks >>> 0; w !== 0; c++) w &= w - 1;
  for (let w = Math.floor(chunks / TWO_POW_32); w !== 0; c++) w &= w - 1;
  return c;
}
