import { BLOCK_LEN, CHUNK_LEN, PARENT } from './_constants.js';
import { wordsFromBytes, wordsToBytes } from './_bytes.js';
import type { ManyJobs } from './_kernels.js';
import { Node } from './_node.js';

const INPUT_LEN = 64 * CHUNK_LEN;
const MAX_MESSAGES = INPUT_LEN / (4 * BLOCK_LEN);
const CV_SLOTS = 6 * (INPUT_LEN / CHUNK_LEN);

/**
 * ManyJobs in JS: each job is hashed as it comes, through the same chunk state and compress as
 * every other JS path. Limits in proportion to the WASM kernel's, smaller.
 */
export function jsManyJobs(): ManyJobs {
  const node = new Node();
  const input = new Uint8Array(INPUT_LEN),
    cvs = new Uint32Array(8 * CV_SLOTS),
    out = new Uint32Array(16 * MAX_MESSAGES);
  let key: Uint32Array = node.cv,
    flags = 0,
    wide = false;
  /** The node's output: a root's words to output slot `to`, else its chaining value to `cvs` slot `to` (`out` slot with `toOut`). */
  const finish = (root: boolean, to: number, toOut = false) =>
    root
      ? node.rootWords(out, 16 * to, wide ? 16 : 8)
      : toOut
        ? node.chainingValue(out, 16 * to)
        : node.chainingValue(cvs, 8 * to);
  const outputInto = (slot: number, n: number, o: Uint8Array, pos: number) => wordsToBytes(out, 64 * slot, o, pos, n);
  return {
    inputLen: INPUT_LEN,
    maxJobs: INPUT_LEN / BLOCK_LEN,
    maxMessages: MAX_MESSAGES,
    cvSlots: CV_SLOTS,
    input(bytes, at, padded) {
      input.set(bytes, at);
      input.fill(0, at + bytes.length, at + padded);
    },
    start: (k, f, w) => void ((key = k), (flags = f), (wide = w)),
    chunk: (at, len, counter, root, to) => (node.setChunk(input, at, len, counter, key, flags), finish(root, to)),
    parent: (left, root, to) => (node.setParent(cvs, 8 * left, 8 * left + 8, key, flags | PARENT), finish(root, to)),
    inputParent: (at, to) => (
      node.setParent(wordsFromBytes(input.subarray(at, at + BLOCK_LEN), node.block), 0, 8, key, flags | PARENT),
      finish(false, to, true)
    ),
    moveCv: (from, to) => void cvs.copyWithin(8 * to, 8 * from, 8 * from + 8),
    run() {},
    output(slot, n) {
      const d = new Uint8Array(n);
      outputInto(slot, n, d, 0);
      return d;
    },
    outputInto,
    outputs(count, o, pos) {
      for (let i = 0; i < count; i++) outputInto(i, 32, o, pos + 32 * i);
    },
  };
}
