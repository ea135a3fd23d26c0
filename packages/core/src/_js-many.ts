import { BLOCK_LEN, CHUNK_LEN, PARENT } from './_constants.js';
import { wordsFromBytes, wordsToBytes } from './_bytes.js';
import type { ManyJobs } from './_kernels.js';
import { Node } from './_node.js';

const CHUNK = 0, PARENT_JOB = 1, INPUT_PARENT = 2;
const ROOT_BIT = 4;
const JOB_WORDS = 4;

/**
 * ManyJobs in JS: the queued jobs run one after another at `run`, through the same chunk state
 * and compress as every other JS path. Limits in proportion to the WASM kernel's, smaller.
 */
export class JsManyJobs implements ManyJobs {
  readonly inputLen = 64 * CHUNK_LEN;
  readonly maxJobs = this.inputLen / BLOCK_LEN;
  readonly maxMessages = this.inputLen / (4 * BLOCK_LEN);
  readonly cvSlots = 6 * (this.inputLen / CHUNK_LEN);
  #input: Uint8Array | undefined;
  #cvs: Uint32Array | undefined;
  #out: Uint32Array | undefined;
  #jobs: Uint32Array | undefined;
  #count = 0;
  readonly #node = new Node();

  input(bytes: Uint8Array, at: number, padded: number): void {
    const input = (this.#input ??= new Uint8Array(this.inputLen));
    input.set(bytes, at);
    input.fill(0, at + bytes.length, at + padded);
  }

  chunk(at: number, len: number, counter: number, root: boolean, to: number): void {
    this.#queue(CHUNK | (root ? ROOT_BIT : 0), at, len, counter, to);
  }

  parent(left: number, root: boolean, to: number): void {
    this.#queue(PARENT_JOB | (root ? ROOT_BIT : 0), left, 0, 0, to);
  }

  inputParent(at: number, to: number): void {
    this.#queue(INPUT_PARENT, at, 0, 0, to);
  }

  #queue(kind: number, from: number, len: number, counter: number, to: number): void {
    const jobs = (this.#jobs ??= new Uint32Array(JOB_WORDS * this.maxJobs));
    const j = JOB_WORDS * this.#count++;
    jobs[j] = kind | (to << 3);
    jobs[j + 1] = from;
    jobs[j + 2] = len;
    jobs[j + 3] = counter;
  }

  moveCv(from: number, to: number): void {
    this.#cvs!.copyWithin(8 * to, 8 * from, 8 * from + 8);
  }

  run(key: Uint32Array, flags: number, wide: boolean): void {
    const jobs = this.#jobs!, node = this.#node;
    const cvs = (this.#cvs ??= new Uint32Array(8 * this.cvSlots));
    const out = (this.#out ??= new Uint32Array(16 * this.maxMessages));
    for (let j = 0; j < JOB_WORDS * this.#count; j += JOB_WORDS) {
      const kind = jobs[j] & 3, root = (jobs[j] & ROOT_BIT) !== 0, to = jobs[j] >>> 3, from = jobs[j + 1];
      if (kind === CHUNK) node.setChunk(this.#input!, from, jobs[j + 2], jobs[j + 3], key, flags);
      else if (kind === PARENT_JOB) node.setParent(cvs, 8 * from, 8 * from + 8, key, flags | PARENT);
      else node.setParent(wordsFromBytes(this.#input!.subarray(from, from + BLOCK_LEN), node.block), 0, 8, key, flags | PARENT);
      if (root) node.rootWords(out, 16 * to, wide ? 16 : 8);
      else if (kind === INPUT_PARENT) node.chainingValue(out, 16 * to);
      else node.chainingValue(cvs, 8 * to);
    }
    this.#count = 0;
  }

  output(slot: number, n: number): Uint8Array {
    const d = new Uint8Array(n);
    this.outputInto(slot, n, d, 0);
    return d;
  }

  outputInto(slot: number, n: number, out: Uint8Array, outPos: number): void {
    wordsToBytes(this.#out!, 64 * slot, out, outPos, n);
  }

  outputs(count: number, out: Uint8Array, outPos: number): void {
    for (let i = 0; i < count; i++) this.outputInto(i, 32, out, outPos + 32 * i);
  }
}
