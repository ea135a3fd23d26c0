// The memory areas of `many`, after those of the other functions (_layout.ts), in the same
// memory:
//   LANE_*      per-lane state
//   MANY_*      chaining values, a job table, job outputs and the jobs' padded input
import { BLOCK_LEN, CHUNK_LEN } from '../_constants.js';
import { XOF_END } from './_layout.js';

// `many`: room for 8 lanes (two groups of 4; the kernel uses one), each i32 array below holds one word per lane (lanes 4g..4g+3 = group g's vector).
export const MANY_LANES: number = 8;
export const LANE_PTR: number = XOF_END; // address of the lane's current block
export const LANE_LEFT: number = LANE_PTR + 4 * MANY_LANES; // blocks left in the lane's job, the current one included
export const LANE_OUT: number = LANE_LEFT + 4 * MANY_LANES; // where the job's 16 output words go
export const LANE_LAST: number = LANE_OUT + 4 * MANY_LANES; // the job's last block length
export const LANE_FINAL: number = LANE_LAST + 4 * MANY_LANES; // the flags of the job's last block
export const LANE_CTR: number = LANE_FINAL + 4 * MANY_LANES; // per-lane state words 12, 14, 15 of the next compression
export const LANE_BLEN: number = LANE_CTR + 4 * MANY_LANES;
export const LANE_FLAGS: number = LANE_BLEN + 4 * MANY_LANES;
export const MANY_H: number = LANE_FLAGS + 4 * MANY_LANES; // chaining values, word-sliced: group g, word j at + 128g + 16j
export const MANY_W2: number = MANY_H + 2 * 128; // words 8-15 of the last output, word-sliced the same way
export const MANY_DUMMY: number = MANY_W2 + 2 * 128; // where idle lanes write their output (8 words)
/**
 * The most jobs per `many` call: one per 64 bytes of input. Pieces of 256 KiB: random 0..4 KiB
 * batches ran 3-5% faster than with 64 KiB pieces (fewer calls, fewer lanes idle at the ends).
 */
export const MANY_MAX_JOBS: number = 4096;
/** The most messages per piece, each with a root output slot. */
export const MANY_MAX_MESSAGES: number = 1024;
/** Job table: 8 words per job (see manyFunction). */
export const MANY_JOBS: number = MANY_DUMMY + 32;
export const MANY_JOB_WORDS: number = 8;
/**
 * Chaining values of the jobs that are not roots: chunks, then each parent level after the one
 * it reads, so a level never overwrites what a later job of the same call still loads. A tree of
 * c chunks takes at most 3c slots, and a piece holds at most MANY_IN_LEN / 544 chunks of
 * messages longer than one chunk (each such chunk but the last is 1024 bytes, the last >= 64).
 */
export const MANY_CV: number = MANY_JOBS + 4 * MANY_JOB_WORDS * MANY_MAX_JOBS;
export const MANY_CV_SLOTS: number = 6 * ((MANY_MAX_JOBS * BLOCK_LEN) / CHUNK_LEN);
/** Root outputs, words 0-7 (the digest's first 32 bytes), one slot per message of the piece. */
export const MANY_OUT: number = MANY_CV + 32 * MANY_CV_SLOTS;
/** Root output words 8-15 go this many bytes after words 0-7, when the call asks for them. */
export const MANY_HI_DELTA: number = 32 * MANY_MAX_MESSAGES;
/** The jobs' input, each message zero-padded to whole blocks (and at least one). */
export const MANY_IN: number = MANY_OUT + 2 * MANY_HI_DELTA;
export const MANY_IN_LEN: number = MANY_MAX_JOBS * BLOCK_LEN;
const END = MANY_IN + MANY_IN_LEN;
export const PAGES: number = (END + 0xffff) >> 16;
