import { aChunk, aSmallLog } from '../_assert.js';
import { IntegrityError } from '../integrity-error.js';
import { BufferPool } from './_buffer-pool.js';
import { ByteQueue } from './_byte-queue.js';
import { baoHash, MAX_BATCH_LOG, resolveLeafBytes, type BaoTreeOpts } from './_options.js';
import { outboardSource, type OutboardSource } from './_outboard-source.js';
import { TreeVerifier } from './_tree-verifier.js';
import { StreamPair, type PairTransformer } from '../_stream-pair.js';
import { CHUNK_LEN, HEADER_LEN, outboardSubtreeLen, PARENT_LEN, visitSubtree } from './tree-shape.js';

export interface BaoVerifyOpts extends BaoTreeOpts {
  /**
   * The outboard encoding (header and parents); the stream then carries the content itself.
   * Without it the stream carries the combined encoding.
   */
  outboard?: Uint8Array | ReadableStream<Uint8Array>;
  /**
   * Wait until whole subtrees of up to 2^batchLog chunks have arrived before checking them
   * (default 0: never wait). A whole subtree is checked with one subtree hash, which lets the
   * core hash several chunks at a time; subtrees that arrive in one write are taken whole
   * anyway. Waiting helps when writes are small, at the cost of holding up to 2^batchLog chunks
   * before releasing them. What is released before an error does not depend on this option.
   */
  batchLog?: number;
}

/**
 * A transform stream that verifies Bao-encoded content against its hash as it streams (Bao
 * spec, "Decoder"), and passes on only content that has been verified: each chunk is released
 * once it and every parent above it match the hash. Write the combined encoding (what `bao
 * encode` writes), or the content with `opts.outboard`; read the content.
 *
 * On the first mismatch the stream errors with an `IntegrityError` after releasing everything
 * verified before it, and nothing from the failing chunk on. An encoding that ends early or has
 * bytes after its tree fails the same way. Memory is the tree height plus one chunk (plus one
 * write's worth of output), whatever the content size.
 *
 * Where the engine has readable byte streams, `readable` is one: a BYOB reader
 * (`getReader({ mode: 'byob' })`) gets verified bytes copied into the buffer it brings, and the
 * stream gathers the next nodes into the memory that frees, instead of fresh arrays.
 *
 * It is a readable/writable pair, what `pipeThrough` takes, and not a `TransformStream`
 * subclass: a TransformStream's readable side is never a byte stream, and its sides drop the
 * chunks the reader has not taken when it errors (see `_stream-pair.ts`). A subclass would hand
 * `TransformStream.prototype`'s getters streams that carry nothing; here they throw.
 *
 * @example
 * ```ts
 * const res = await fetch('/video.bao');
 * const content = res.body!.pipeThrough(new BaoVerifyStream(hash));
 * ```
 */
export class BaoVerifyStream implements ReadableWritablePair<Uint8Array, Uint8Array> {
  readonly #pair: StreamPair;

  constructor(hash: Uint8Array | string, opts: BaoVerifyOpts = {}) {
    const want = baoHash(hash);
    const leafBytes = resolveLeafBytes(opts);
    const batchBytes = CHUNK_LEN * 2 ** aSmallLog(opts.batchLog, 'opts.batchLog', MAX_BATCH_LOG);
    const outboard = opts.outboard === undefined ? undefined : outboardSource(opts.outboard, want);
    this.#pair = new StreamPair(new BaoVerifier(want, leafBytes, batchBytes, outboard));
  }

  /** The verified content: a byte stream where the engine has them. */
  get readable(): ReadableStream<Uint8Array> {
    return this.#pair.readable;
  }

  /** The encoding (or the content, beside an outboard). */
  get writable(): WritableStream<Uint8Array> {
    return this.#pair.writable;
  }
}

/**
 * A node whose bytes are being gathered: a leaf, or a whole subtree checked at once. Each byte
 * written is copied once, straight to where it stays: content into the array that is released
 * once it verifies, parents of a combined encoding into the verifier's scratch (never released,
 * and only one node is gathered at a time).
 */
class Gathering {
  readonly start: number;
  readonly content: Uint8Array;
  readonly parents: Uint8Array;
  /** The node's encoding in pre-order: runs of content bytes (> 0) and parent bytes (< 0). */
  readonly #runs: readonly number[];
  #run = 0;
  #runLeft: number;
  contentFill = 0;
  parentFill = 0;
  /** Encoded bytes still to come. */
  missing: number;

  /**
   * `runs`: from `encodingRuns`, or undefined for content alone (an outboard's, or a leaf);
   * `content`: where the content goes, exactly its length; `parents`: where the parents of the
   * combined encoding go, exactly their length.
   */
  constructor(start: number, content: Uint8Array, parents: Uint8Array, runs: readonly number[] | undefined) {
    const len = content.length;
    this.start = start;
    this.content = content;
    this.parents = parents;
    this.#runs = runs ?? [len];
    this.#runLeft = Math.abs(this.#runs[0]);
    this.missing = len + this.parents.length;
  }

  /** Encoded bytes gathered so far. */
  get gathered(): number {
    return this.content.length + this.parents.length - this.missing;
  }

  /** Copies as much of the queue as the node still needs. */
  fill(input: ByteQueue): number {
    let taken = 0;
    while (this.missing > 0 && input.size > 0) {
      const n = Math.min(this.#runLeft, input.size);
      if (this.#runs[this.#run] > 0) input.takeInto(this.content, (this.contentFill += n) - n, n);
      else input.takeInto(this.parents, (this.parentFill += n) - n, n);
      taken += n;
      this.missing -= n;
      this.#runLeft -= n;
      if (this.#runLeft === 0 && this.missing > 0) this.#runLeft = Math.abs(this.#runs[++this.#run]);
    }
    return taken;
  }
}

/** The runs of a combined encoding of a subtree of `len` bytes: see Gathering. */
function encodingRuns(len: number, leafBytes: number): number[] {
  const runs: number[] = [];
  const add = (n: number): void => {
    const last = runs.length - 1;
    if (last >= 0 && runs[last] > 0 === n > 0) runs[last] += n;
    else runs.push(n);
  };
  visitSubtree(len, leafBytes, () => add(-PARENT_LEN), add);
  return runs;
}

/** The stream side of the decoder: feeds written bytes and outboard bytes to a TreeVerifier. */
class BaoVerifier implements PairTransformer {
  readonly #hash: Uint8Array;
  readonly #batchBytes: number;
  readonly #verifier: TreeVerifier;
  readonly #outboard: OutboardSource | undefined;
  readonly #input = new ByteQueue();
  /** The node being gathered, if any. */
  #gathering: Gathering | undefined;
  /** The largest write so far: a subtree whose bytes fit in one is gathered whole. */
  #largestWrite = 0;
  /** Encoded bytes consumed, for error messages. */
  #consumed = 0;
  /** encodingRuns by subtree length: a tree has at most two subtree lengths per level. */
  readonly #runs = new Map<number, number[]>();
  /** The parents of the subtree being gathered from a combined encoding; grows to the largest. */
  #parentScratch = new Uint8Array(0);
  /** Buffers a BYOB reader's copies freed, to gather content into. */
  readonly #pool = new BufferPool();

  constructor(hash: Uint8Array, leafBytes: number, batchBytes: number, outboard: OutboardSource | undefined) {
    this.#hash = hash;
    this.#batchBytes = batchBytes;
    this.#verifier = new TreeVerifier(hash, leafBytes);
    this.#outboard = outboard;
  }

  async write(
    chunk: Uint8Array,
    emit: (out: Uint8Array) => void,
    deliver: (bytes: Uint8Array) => number,
  ): Promise<void> {
    // Read as the engine holds it: a chunk's own methods never decide what is checked or released.
    const bytes = aChunk(chunk);
    if (bytes.length > this.#largestWrite) this.#largestWrite = bytes.length;
    this.#input.push(bytes);
    try {
      await this.#run(emit, false, deliver);
    } finally {
      this.#input.detach();
    }
  }

  async close(emit: (out: Uint8Array) => void): Promise<void> {
    await this.#run(emit, true);
    if (this.#verifier.kind !== 'done') {
      const what = this.#outboard ? 'content' : 'Bao encoding';
      const gathered = this.#gathering?.gathered ?? 0;
      throw IntegrityError.corrupt(
        this.#hash,
        `the ${what} ended early: ${this.#input.size + gathered} bytes left over after byte ${this.#consumed - gathered}, not enough for the next node`,
      );
    }
    await this.#outboard?.finish();
  }

  stop(reason: unknown): void {
    this.#outboard?.cancel(reason);
  }

  recycle(buffers: ArrayBuffer[]): void {
    // Nodes are gathered up to the largest write (or a batch): two of those, and a leaf.
    this.#pool.give(buffers, 2 * Math.max(this.#largestWrite, this.#batchBytes) + this.#verifier.leafBytes);
  }

  /**
   * Verifies every node the queued bytes complete. Leaves, and whole subtrees whose encoding is
   * no larger than the largest write so far (or 2^batchLog chunks), are gathered until all their
   * bytes are there and then checked at once; larger subtrees are entered parent by parent.
   * Verified content is released as it verifies, also when a later node fails. `final`: no more
   * input will come, so nothing waits for a whole subtree.
   */
  async #run(
    emit: (out: Uint8Array) => void,
    final: boolean,
    deliver: (bytes: Uint8Array) => number = () => 0,
  ): Promise<void> {
    const verifier = this.#verifier;
    for (;;) {
      let goOn: boolean | Promise<boolean> | undefined;
      if (this.#gathering) goOn = await this.#gather(this.#gathering, emit, final);
      else if (verifier.kind === 'done') return this.#endOfTree();
      else if (verifier.kind === 'leaf') goOn = this.#startLeaf(final);
      else if (verifier.kind === 'parent' && verifier.wholeSubtree) goOn = this.#takeSubtree(emit, deliver, final);
      goOn ??= this.#readNode();
      if (goOn instanceof Promise) goOn = await goOn;
      if (!goOn) return;
    }
  }

  /** Gathers what the node still needs from the queue; checks it once all its bytes are there. Whether to go on. */
  async #gather(node: Gathering, emit: (out: Uint8Array) => void, final: boolean): Promise<boolean> {
    this.#consumed += node.fill(this.#input);
    if (node.missing > 0) {
      if (final) await this.#verifyPart(node, emit);
      return false;
    }
    this.#gathering = undefined;
    await this.#verifyWhole(node, emit);
    return true;
  }

  /** The tree is complete: any byte written after it is an error. */
  #endOfTree(): void {
    const input = this.#input;
    if (input.size === 0) return;
    const what = this.#outboard ? 'content' : 'Bao encoding';
    throw IntegrityError.corrupt(
      this.#hash,
      `the ${what} has ${input.size} bytes after the end of its tree, at byte ${this.#consumed}`,
    );
  }

  /** A leaf is next: gathered from the bytes there are, or, if none, from the next write. Whether to go on. */
  #startLeaf(final: boolean): boolean {
    const len = this.#verifier.len;
    if (this.#input.size === 0 && len > 0 && !final) return false;
    this.#gathering = new Gathering(
      this.#verifier.start,
      this.#pool.take(len),
      this.#parentScratch.subarray(0, 0),
      undefined,
    );
    return true;
  }

  /**
   * A whole subtree is next: checked where it lies beside an outboard, waited for, or gathered
   * whole when it fits (see #run). Whether to go on; undefined when it is entered parent by parent.
   */
  #takeSubtree(
    emit: (out: Uint8Array) => void,
    deliver: (bytes: Uint8Array) => number,
    final: boolean,
  ): boolean | undefined {
    const { start, len, leafBytes } = this.#verifier;
    const input = this.#input;
    const outboard = this.#outboard;
    const parentBytes = outboardSubtreeLen(len, leafBytes);
    if (outboard && this.#verifyInPlace(len, parentBytes, emit, deliver)) return true;
    // The next write may hold the whole subtree, to verify where it lies.
    if (outboard && input.size === 0 && !final) return false;
    const encodedBytes = outboard ? len : len + parentBytes;
    // Waiting for a subtree whose content fits in the largest write holds at most two writes'
    // worth; final: only what is queued.
    const fits = final ? encodedBytes <= input.size : len <= this.#largestWrite || encodedBytes <= input.size;
    if (!fits && (len > this.#batchBytes || final)) return undefined;
    let runs = outboard ? undefined : this.#runs.get(len);
    if (!outboard && !runs) this.#runs.set(len, (runs = encodingRuns(len, leafBytes)));
    this.#gathering = new Gathering(start, this.#pool.take(len), this.#parents(outboard ? 0 : parentBytes), runs);
    return true;
  }

  /**
   * The header or a single parent, from the outboard or from the combined encoding. Whether to
   * go on; a promise only while a streamed outboard is read.
   */
  #readNode(): boolean | Promise<boolean> {
    const size = this.#verifier.kind === 'header' ? HEADER_LEN : PARENT_LEN;
    const outboard = this.#outboard;
    if (!outboard) {
      const bytes = this.#input.take(size);
      if (bytes !== undefined) this.#consumed += size;
      return this.#takeNode(bytes);
    }
    const bytes = outboard.read(size);
    return bytes instanceof Promise ? bytes.then((b) => this.#takeNode(b)) : this.#takeNode(bytes);
  }

  /** Checks the header or parent read, if there is one. */
  #takeNode(bytes: Uint8Array | undefined): boolean {
    if (bytes === undefined) return false;
    if (this.#verifier.kind === 'header') this.#verifier.header(bytes);
    else this.#verifier.parent(bytes);
    return true;
  }

  /**
   * Checks the whole subtree next from an outboard where its content lies, when all of it is in
   * one written chunk and its parents are there: hashed there, and each verified byte copied
   * once, at once (the writer may change its chunk after the write), into a pending BYOB read
   * or else memory of our own. Returns false, having consumed nothing, when it cannot.
   */
  #verifyInPlace(
    len: number,
    parentBytes: number,
    emit: (out: Uint8Array) => void,
    deliver: (bytes: Uint8Array) => number,
  ): boolean {
    const outboard = this.#outboard!;
    const content = this.#input.peek(len);
    if (!content || outboard.has(parentBytes) !== true) return false;
    // has() said yes at once: read() answers at once.
    const parents = outboard.read(parentBytes) as Uint8Array;
    let released = 0;
    this.#verifier.subtree(parents, content, (n) => {
      const piece = content.subarray(released, (released += n));
      const taken = deliver(piece);
      if (taken === piece.length) return;
      const own = this.#pool.take(piece.length - taken);
      own.set(taken === 0 ? piece : piece.subarray(taken));
      emit(own);
    });
    this.#input.takeInto(undefined, 0, len);
    this.#consumed += len;
    return true;
  }

  /** The first `n` bytes of the parent scratch, grown (doubling) when it is shorter. */
  #parents(n: number): Uint8Array {
    if (n > this.#parentScratch.length)
      this.#parentScratch = new Uint8Array(Math.max(n, 2 * this.#parentScratch.length));
    return this.#parentScratch.subarray(0, n);
  }

  /** Checks a node whose bytes are all there and releases its content as it verifies. */
  async #verifyWhole(node: Gathering, emit: (out: Uint8Array) => void): Promise<void> {
    const verifier = this.#verifier;
    const { content } = node;
    let released = 0;
    const verified = (n: number): void => emit(content.subarray(released, (released += n)));
    if (verifier.kind === 'leaf') {
      verifier.leaf(content);
      return verified(content.length);
    }
    const outboard = this.#outboard;
    if (!outboard) return verifier.subtree(node.parents, content, verified);
    const parentBytes = outboardSubtreeLen(content.length, verifier.leafBytes);
    // An outboard that ends inside the subtree is read node by node, up to where it ends.
    const has = outboard.has(parentBytes);
    if (has instanceof Promise ? await has : has) {
      const parents = outboard.read(parentBytes);
      return verifier.subtree(parents instanceof Promise ? await parents : parents, content, verified);
    }
    await this.#verifyPart(node, emit);
  }

  /**
   * Checks a node node by node as far as its bytes go: what is released before an error is then
   * exactly what reading the nodes one at a time releases.
   */
  async #verifyPart(node: Gathering, emit: (out: Uint8Array) => void): Promise<void> {
    const verifier = this.#verifier;
    const outboard = this.#outboard;
    const { content, parents } = node;
    let c = 0;
    let p = 0;
    while (c < node.contentFill) {
      const { kind, len } = verifier;
      if (kind === 'leaf') {
        if (c + len > node.contentFill) return;
        verifier.leaf(content.subarray(c, c + len));
        emit(content.subarray(c, (c += len)));
      } else if (outboard) {
        const bytes = outboard.read(PARENT_LEN);
        verifier.parent(bytes instanceof Promise ? await bytes : bytes);
      } else {
        if (p + PARENT_LEN > node.parentFill) return;
        verifier.parent(parents.subarray(p, (p += PARENT_LEN)));
      }
    }
  }
}
