import { BLOCK_LEN, CHUNK_END, PARENT, ROOT } from '../_constants.js';
import type { ManyJobs } from '../_kernels.js';
import { KEY_PTR, MANY_CV, MANY_CV_SLOTS, MANY_HI_DELTA, MANY_IN, MANY_IN_LEN, MANY_JOBS, MANY_MAX_JOBS, MANY_MAX_MESSAGES, MANY_OUT } from './_kernel-module.js';

const JOB_WORDS = 8;
const PARENT_JOB = BLOCK_LEN | (PARENT << 8);

/**
 * The job-table writer of the kernel's `many`: jobs are written into WASM memory at MANY_JOBS
 * in the layout `many` reads, places become addresses, and `run` is one call.
 */
export class WasmManyJobs implements ManyJobs {
  readonly inputLen = MANY_IN_LEN;
  readonly maxJobs = MANY_MAX_JOBS;
  readonly maxMessages = MANY_MAX_MESSAGES;
  readonly cvSlots = MANY_CV_SLOTS;
  readonly #mem8: Uint8Array;
  readonly #mem32: Uint32Array;
  readonly #many: (count: number, flags: number, wide: number) => void;
  #jobs = 0;

  constructor(mem8: Uint8Array, mem32: Uint32Array, many: (count: number, flags: number, wide: number) => void) {
    this.#mem8 = mem8;
    this.#mem32 = mem32;
    this.#many = many;
  }

  input(bytes: Uint8Array, at: number, padded: number): void {
    const mem8 = this.#mem8;
    const start = MANY_IN + at;
    mem8.set(bytes, start);
    for (let b = start + bytes.length; b < start + padded; b++) mem8[b] = 0;
  }

  chunk(at: number, len: number, counter: number, root: boolean, to: number): void {
    const blocks = len === 0 ? 1 : (len + BLOCK_LEN - 1) >> 6;
    const last = (len - (blocks - 1) * BLOCK_LEN) | ((root ? CHUNK_END | ROOT : CHUNK_END) << 8);
    this.#job(MANY_IN + at, blocks, counter, last, root ? MANY_OUT + 32 * to : MANY_CV + 32 * to);
  }

  parent(left: number, root: boolean, to: number): void {
    this.#job(MANY_CV + 32 * left, 1, 0, root ? PARENT_JOB | (ROOT << 8) : PARENT_JOB, root ? MANY_OUT + 32 * to : MANY_CV + 32 * to);
  }

  inputParent(at: number, to: number): void {
    this.#job(MANY_IN + at, 1, 0, PARENT_JOB, MANY_OUT + 32 * to);
  }

  /** Appends a job to the table: the words `many` reads (see manyFunction). */
  #job(addr: number, blocks: number, counter: number, last: number, outAddr: number): void {
    const mem32 = this.#mem32;
    const w = (MANY_JOBS >> 2) + JOB_WORDS * this.#jobs++;
    mem32[w] = addr;
    mem32[w + 1] = blocks;
    mem32[w + 2] = counter;
    mem32[w + 3] = last;
    mem32[w + 4] = outAddr;
  }

  moveCv(from: number, to: number): void {
    const base = MANY_CV >> 2;
    this.#mem32.copyWithin(base + 8 * to, base + 8 * from, base + 8 * from + 8);
  }

  run(key: Uint32Array, flags: number, wide: boolean): void {
    this.#mem32.set(key, KEY_PTR >> 2);
    this.#many(this.#jobs, flags, wide ? 1 : 0);
    this.#jobs = 0;
  }

  output(slot: number, n: number): Uint8Array {
    if (n > 32) {
      const d = new Uint8Array(n);
      this.outputInto(slot, n, d, 0);
      return d;
    }
    const o = MANY_OUT + 32 * slot;
    return this.#mem8.slice(o, o + n);
  }

  outputInto(slot: number, n: number, out: Uint8Array, outPos: number): void {
    const mem8 = this.#mem8;
    const o = MANY_OUT + 32 * slot;
    out.set(mem8.subarray(o, o + Math.min(n, 32)), outPos);
    if (n > 32) out.set(mem8.subarray(o + MANY_HI_DELTA, o + MANY_HI_DELTA + n - 32), outPos + 32);
  }

  outputs(count: number, out: Uint8Array, outPos: number): void {
    out.set(this.#mem8.subarray(MANY_OUT, MANY_OUT + 32 * count), outPos);
  }
}
