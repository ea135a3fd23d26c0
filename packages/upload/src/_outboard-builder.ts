/**
 * The Bao outboard of an upload, built as its bytes are written, in memory bounded per upload:
 * one leaf and the chaining values of at most one subtree per level (the stack BLAKE3 keeps),
 * whatever the upload's size. The tree's parent nodes go to a file beside the upload as they are
 * made, in post-order (a parent right after its two subtrees: the order in which they come to
 * exist); once the upload verified they are written out in Bao's pre-order (the root first,
 * which depends on every byte), a bounded block at a time.
 *
 * The tree is Bao's (the hash mode; leaves of 2^chunkGroupLog chunks), the one `BaoEncoder`
 * builds in memory, which keeps 32 bytes per leaf until the end (1/32 of the content with 1 KiB
 * leaves): fine for a stream in a page, not for uploads a server keeps for days.
 * @module
 */
import { concatBytes, HEADER_LEN, writeHeader } from '@blake3-web/stream/_internal';
import { open, rename, rm } from 'node:fs/promises';
import { blake3, CHUNK_LEN, OUT_LEN as CV_LEN } from '@blake3-web/core';
import {
  cvStackDepth,
  hashSubtrees,
  leftSubtreeLen,
  mergeManySubtreesNonRoot,
  mergeSubtreesRoot,
} from '@blake3-web/core/hazmat';

/** A parent node: its two children's chaining values. */
const PARENT_LEN = 2 * CV_LEN;
/** Parents gathered in memory before they are appended to the file. */
const FLUSH_BYTES = 256 << 10;
/** Leaves per block moved from post-order to pre-order in memory: 1 MiB of parents. */
const BLOCK_LEAVES = 1 << 14;

/** The state at a leaf boundary that a failed write goes back to: what `rewind` takes. */
export type OutboardCheckpoint = {
  readonly leaves: number;
  readonly stack: readonly { cv: Uint8Array; level: number }[];
};

export class OutboardBuilder {
  readonly #leafBytes: number;
  readonly #parentsPath: string;
  #leaf: Uint8Array;
  #leafFill = 0;
  /** Leaves hashed: those that more bytes follow. */
  #leaves = 0;
  /** Complete subtrees left of the next leaf, largest first: the binary digits of `#leaves`. */
  #stack: { cv: Uint8Array; level: number }[] = [];
  /** Parents made but not yet in the file, in post-order. */
  #queued: Uint8Array[] = [];
  #queuedBytes = 0;
  /** Bytes of this tree's parents in the file: where the next ones go. */
  #flushed = 0;
  /**
   * The appends, one after another: one made before a rewind cannot land after those made
   * since. A failed one leaves parents missing from the file: until a rewind to before them,
   * `failed` holds its error and the tree refuses to go on.
   */
  #appending: Promise<void> = Promise.resolve();
  #failed: { error: unknown } | undefined;
  /** Counts rewinds: an append made before the last one that fails does not matter any more. */
  #rewinds = 0;

  /** Starts a tree over no bytes; `parentsPath` is the file its parents go to (emptied). */
  constructor(parentsPath: string, chunkGroupLog: number) {
    this.#leafBytes = 1024 * 2 ** chunkGroupLog;
    this.#leaf = new Uint8Array(this.#leafBytes);
    this.#parentsPath = parentsPath;
  }

  /** Content bytes taken. */
  get length(): number {
    return this.#leaves * this.#leafBytes + this.#leafFill;
  }

  /** Whether an append to the file failed since the last rewind (the file lacks parents). */
  get failed(): boolean {
    return this.#failed !== undefined;
  }

  /** Whether enough parents wait to be appended to the file (`flush`). */
  get shouldFlush(): boolean {
    return this.#queuedBytes >= FLUSH_BYTES;
  }

  update(data: Uint8Array): void {
    const leafBytes = this.#leafBytes;
    let i = 0;
    while (i < data.length) {
      // A full leaf is hashed only once a byte follows it: until then it may be the last leaf,
      // which the root's merge takes as it is.
      if (this.#leafFill === leafBytes) {
        this.#push(hashSubtrees(this.#leaf, this.#leaves * leafBytes, leafBytes));
        this.#leafFill = 0;
      }
      if (this.#leafFill === 0) {
        const whole = Math.floor((data.length - i - 1) / leafBytes);
        if (whole > 0) {
          this.#push(hashSubtrees(data.subarray(i, i + whole * leafBytes), this.#leaves * leafBytes, leafBytes));
          i += whole * leafBytes;
        }
      }
      const n = Math.min(leafBytes - this.#leafFill, data.length - i);
      this.#leaf.set(data.subarray(i, i + n), this.#leafFill);
      this.#leafFill += n;
      i += n;
    }
  }

  /**
   * Takes the chaining values of whole leaves that follow the bytes taken, which must end at a
   * leaf boundary (leaves hashed elsewhere, `LeafRun`); more bytes must follow them, since the
   * last leaf is the root's when it is the only one.
   */
  updateLeaves(cvs: Uint8Array): void {
    if (cvs.length === 0) return;
    if (this.#leafFill % this.#leafBytes !== 0)
      throw new Error('OutboardBuilder.updateLeaves: the bytes taken do not end at a leaf boundary');
    if (this.#leafFill === this.#leafBytes) {
      this.#push(hashSubtrees(this.#leaf, this.#leaves * this.#leafBytes, this.#leafBytes));
      this.#leafFill = 0;
    }
    this.#push(cvs);
  }

  /** Appends the parents made so far to the file, after the appends before. */
  async flush(): Promise<void> {
    if (this.#queuedBytes > 0) {
      const parents = this.#queued.length === 1 ? this.#queued[0] : concatBytes(this.#queued, this.#queuedBytes);
      const at = this.#flushed;
      this.#queued = [];
      this.#queuedBytes = 0;
      this.#flushed += parents.length;
      const rewinds = this.#rewinds;
      this.#appending = this.#appending.then(() =>
        append(this.#parentsPath, parents, at).catch((error: unknown) => {
          if (rewinds === this.#rewinds) this.#failed ??= { error };
        }),
      );
    }
    await this.#appending;
    if (this.#failed) throw this.#failed.error;
  }

  /** The state to go back to if the bytes that follow are not kept; taken with every parent flushed. */
  checkpoint(): OutboardCheckpoint {
    if (this.#queuedBytes > 0 || this.#failed)
      throw new Error('OutboardBuilder.checkpoint with parents not in the file');
    return { leaves: this.#leaves, stack: this.#stack.slice() };
  }

  /**
   * Goes back to `checkpoint`: the tree holds the bytes before its leaf boundary (`length`), and
   * the bytes after it are to be written again. Parents not yet flushed are dropped.
   */
  rewind(checkpoint: OutboardCheckpoint): void {
    this.#leaves = checkpoint.leaves;
    this.#stack = checkpoint.stack.slice();
    this.#leafFill = 0;
    this.#queued = [];
    this.#queuedBytes = 0;
    this.#failed = undefined;
    this.#rewinds++;
    // One parent per merge: every leaf but those the stack's subtrees stand for.
    this.#flushed = (checkpoint.leaves - checkpoint.stack.length) * PARENT_LEN;
  }

  /** The Bao hash of the bytes taken (the BLAKE3 root), without changing the tree. */
  root(): Uint8Array {
    if (this.#leaves === 0) return blake3(this.#leaf.subarray(0, this.#leafFill));
    let right = hashSubtrees(this.#leaf.subarray(0, this.#leafFill), this.#leaves * this.#leafBytes, this.#leafBytes);
    for (let i = this.#stack.length - 1; i > 0; i--)
      right = mergeManySubtreesNonRoot(concatBytes([this.#stack[i].cv, right], PARENT_LEN));
    return mergeSubtreesRoot(this.#stack[0].cv, right);
  }

  /**
   * Writes the outboard of the bytes taken to `path` (whole under another name first, then
   * renamed) and removes the file of parents. The tree takes no more bytes afterwards.
   */
  async writeOutboard(path: string): Promise<void> {
    const count = this.#leaves + 1;
    const header = new Uint8Array(HEADER_LEN);
    writeHeader(header, this.length);
    if (this.#leaves > 0) {
      // The last leaf, then the subtrees on the stack merged right to left: each merge's parent
      // follows both its subtrees, so the file stays in post-order; the last one is the root.
      let right = hashSubtrees(this.#leaf.subarray(0, this.#leafFill), this.#leaves * this.#leafBytes, this.#leafBytes);
      for (let i = this.#stack.length - 1; i >= 0; i--) {
        const node = concatBytes([this.#stack[i].cv, right], PARENT_LEN);
        this.#queue(node);
        if (i > 0) right = mergeManySubtreesNonRoot(node);
      }
      this.#stack = [];
      await this.flush();
    }
    const part = `${path}.part`;
    const out = await open(part, 'w');
    try {
      await out.write(header);
      if (count > 1) {
        const parents = await open(this.#parentsPath, 'r');
        try {
          await writePreOrder(parents, count, out);
        } finally {
          await parents.close();
        }
      }
    } finally {
      await out.close();
    }
    await rename(part, path);
    await this.discard();
  }

  /** Removes the file of parents. */
  async discard(): Promise<void> {
    await rm(this.#parentsPath, { force: true });
  }

  #queue(node: Uint8Array): void {
    this.#queued.push(node);
    this.#queuedBytes += node.length;
  }

  /**
   * Takes the chaining values of consecutive leaves that more bytes follow, and merges what
   * completes, one level at a time (each level's parents in one batch): the stack ends as the
   * binary digits of the new leaf count. The parents are queued in post-order: a parent of
   * level l (2^l leaves) completed by leaf m - 1 is the l-th merge after that leaf.
   */
  #push(cvs: Uint8Array): void {
    const leafBytes = this.#leafBytes;
    // Parents made by the first `leaves` leaves: one per merge, and a merge leaves one value
    // fewer on the stack than there are leaves (core's stack depth).
    const parentsOf = (leaves: number) => leaves - cvStackDepth(leaves * leafBytes);
    const before = this.#leaves;
    const added = cvs.length / CV_LEN;
    const after = before + added;
    const firstParent = parentsOf(before);
    const made = new Uint8Array((parentsOf(after) - firstParent) * PARENT_LEN);
    const kept: { cv: Uint8Array; level: number }[] = [];
    let run = cvs;
    let start = before; // index of run's first subtree on its level
    for (let level = 0; ; level++) {
      if (start % 2 === 1) {
        // The stack's top is this level's subtree just left of the run: its left sibling.
        run = concatBytes([this.#stack.pop()!.cv, run], run.length + CV_LEN);
        start -= 1;
      }
      const pairs = Math.floor(run.length / PARENT_LEN);
      if (run.length % PARENT_LEN !== 0) kept.push({ cv: run.slice(run.length - CV_LEN), level });
      if (pairs === 0) break;
      // Each pair of neighbours is a parent node already; copied a word at a time (every array
      // here is a whole ArrayBuffer of its own, so word-aligned): a view per node cost more
      // than the merges at 1 KiB leaves.
      const from = new Uint32Array(run.buffer, run.byteOffset, run.length >> 2);
      const to = new Uint32Array(made.buffer);
      for (let p = 0; p < pairs; p++) {
        // The parent of leaves [a, m): made by leaf m - 1, its level-th merge.
        const m = (start + 2 * p + 2) * 2 ** level;
        const o = (parentsOf(m - 1) + level - firstParent) * (PARENT_LEN >> 2);
        for (let w = 0, f = p * (PARENT_LEN >> 2); w < PARENT_LEN >> 2; w++) to[o + w] = from[f + w];
      }
      run = mergeManySubtreesNonRoot(run.subarray(0, pairs * PARENT_LEN));
      start /= 2;
    }
    for (let k = kept.length - 1; k >= 0; k--) this.#stack.push(kept[k]);
    this.#leaves = after;
    if (made.length > 0) this.#queue(made);
  }
}

/**
 * Writes `parents` into the file at `path` from byte `at`. A new tree empties a file left by an
 * earlier one (a restarted server); after a rewind the parents past the checkpoint are written
 * over, and nothing past the tree's parents is read.
 */
async function append(path: string, parents: Uint8Array, at: number): Promise<void> {
  const file = await open(path, at === 0 ? 'w' : 'r+');
  try {
    await file.write(parents, 0, parents.length, at);
  } finally {
    await file.close();
  }
}

/**
 * Copies the parents of a tree of `count` leaves from `post` (post-order, from offset 0) to `out`
 * in pre-order, after what `out` holds. A subtree of up to BLOCK_LEAVES leaves is read whole and
 * reordered in memory; a larger one gives its root, then its left and right subtrees.
 */
async function writePreOrder(
  post: Awaited<ReturnType<typeof open>>,
  count: number,
  out: Awaited<ReturnType<typeof open>>,
): Promise<void> {
  const read = async (index: number, parents: number): Promise<Uint8Array> => {
    const bytes = new Uint8Array(parents * PARENT_LEN);
    const { bytesRead } = await post.read(bytes, 0, bytes.length, index * PARENT_LEN);
    if (bytesRead !== bytes.length) throw new Error('the file of Bao parents is shorter than its tree');
    return bytes;
  };
  const subtree = async (n: number, first: number): Promise<void> => {
    if (n === 1) return;
    if (n <= BLOCK_LEAVES) {
      const block = await read(first, n - 1);
      const ordered = new Uint8Array(block.length);
      reorder(block, n, 0, ordered, 0);
      await out.write(ordered);
      return;
    }
    const left = leftLeaves(n);
    await out.write(await read(first + n - 2, 1));
    await subtree(left, first);
    await subtree(n - left, first + left - 1);
  };
  await subtree(count, 0);
}

/**
 * Writes the parents of a subtree of `n` leaves, in post-order in `post` from parent `first`, to
 * `out` at `at` in pre-order; returns the position after them. Post-order holds the left
 * subtree's parents, the right's, then the root; pre-order the root, the left's, the right's.
 */
function reorder(post: Uint8Array, n: number, first: number, out: Uint8Array, at: number): number {
  if (n === 1) return at;
  const root = (first + n - 2) * PARENT_LEN;
  out.set(post.subarray(root, root + PARENT_LEN), at);
  const left = leftLeaves(n);
  at = reorder(post, left, first, out, at + PARENT_LEN);
  return reorder(post, n - left, first + left - 1, out, at);
}

/** The left subtree's leaves in a tree of `n` >= 2 leaves: BLAKE3's split, in whole leaves. */
function leftLeaves(n: number): number {
  return leftSubtreeLen(n * CHUNK_LEN) / CHUNK_LEN;
}
