import { aChunk, aSmallLog } from '../_assert.js';
import { IntegrityError } from '../integrity-error.js';
import { ByteQueue } from './_byte-queue.js';
import { gatedPair, type GatedTransformer } from './_gated-pair.js';
import { baoHash, MAX_BATCH_LOG, resolveLeafBytes, type BaoTreeOpts } from './_options.js';
import { outboardSource, type OutboardSource } from './_outboard-source.js';
import { TreeVerifier } from './_tree-verifier.js';
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
 * A `TransformStream` that verifies Bao-encoded content against its hash as it streams (Bao
 * spec, "Decoder"), and passes on only content that has been verified: each chunk is released
 * once it and every parent above it match the hash. Write the combined encoding (what `bao
 * encode` writes), or the content with `opts.outboard`; read the content.
 *
 * On the first mismatch the stream errors with an `IntegrityError` after releasing everything
 * verified before it, and nothing from the failing chunk on. An encoding that ends early or has
 * bytes after its tree fails the same way. Memory is the tree height plus one chunk (plus one
 * write's worth of output), whatever the content size.
 *
 * @example
 * ```ts
 * const res = await fetch('/video.bao');
 * const content = res.body!.pipeThrough(new BaoVerifyStream(hash));
 * ```
 */
export class BaoVerifyStream extends TransformStream<Uint8Array, Uint8Array> {
  declare readonly readable: ReadableStream<Uint8Array>;
  declare readonly writable: WritableStream<Uint8Array>;

  constructor(hash: Uint8Array | string, opts: BaoVerifyOpts = {}) {
    const want = baoHash(hash);
    const leafBytes = resolveLeafBytes(opts);
    const batchBytes = CHUNK_LEN * 2 ** aSmallLog(opts.batchLog, 'opts.batchLog', MAX_BATCH_LOG);
    const outboard = opts.outboard === undefined ? undefined : outboardSource(opts.outboard, want);
    super();
    const pair = gatedPair(new BaoVerifier(want, leafBytes, batchBytes, outboard));
    // The sides of the base TransformStream stay unused: see gatedPair for why.
    Object.defineProperty(this, 'writable', { value: pair.writable });
    Object.defineProperty(this, 'readable', { value: pair.readable });
  }
}

/** The stream side of the decoder: feeds written bytes and outboard bytes to a TreeVerifier. */
class BaoVerifier implements GatedTransformer {
  readonly #hash: Uint8Array;
  readonly #batchBytes: number;
  readonly #verifier: TreeVerifier;
  readonly #outboard: OutboardSource | undefined;
  readonly #input = new ByteQueue();
  /** Parents of a subtree taken whole from a combined encoding; grows to the largest seen. */
  #parents = new Uint8Array(0);
  /** Encoded bytes consumed, for error messages. */
  #consumed = 0;

  constructor(hash: Uint8Array, leafBytes: number, batchBytes: number, outboard: OutboardSource | undefined) {
    this.#hash = hash;
    this.#batchBytes = batchBytes;
    this.#verifier = new TreeVerifier(hash, leafBytes);
    this.#outboard = outboard;
  }

  async write(chunk: Uint8Array, emit: (out: Uint8Array) => void): Promise<void> {
    aChunk(chunk);
    this.#input.push(chunk);
    try {
      await this.#run(emit, false);
    } finally {
      this.#input.detach();
    }
  }

  async close(emit: (out: Uint8Array) => void): Promise<void> {
    await this.#run(emit, true);
    if (this.#verifier.kind !== 'done') {
      const what = this.#outboard ? 'content' : 'Bao encoding';
      throw IntegrityError.corrupt(
        this.#hash,
        `the ${what} ended early: ${this.#input.size} bytes left over after byte ${this.#consumed}, not enough for the next node`,
      );
    }
    await this.#outboard?.finish();
  }

  stop(reason: unknown): void {
    this.#outboard?.cancel(reason);
  }

  /**
   * Verifies every node the queued bytes complete, and whole subtrees at once where all their
   * bytes are queued (they arrived together, so taking them together delays nothing). Verified
   * content is copied into one output per write, released even when a later node fails.
   * `final`: no more input will come, so nothing waits for a whole subtree.
   */
  async #run(emit: (out: Uint8Array) => void, final: boolean): Promise<void> {
    const verifier = this.#verifier;
    const input = this.#input;
    const outboard = this.#outboard;
    const leafBytes = verifier.leafBytes;
    // Content released by this write is at most what is queued now.
    let out: Uint8Array | undefined;
    let filled = 0;
    const verified = (n: number): void => void (filled += n);
    try {
      for (;;) {
        const { kind, len } = verifier;
        if (kind === 'done') {
          if (input.size > 0) {
            const what = outboard ? 'content' : 'Bao encoding';
            throw IntegrityError.corrupt(
              this.#hash,
              `the ${what} has ${input.size} bytes after the end of its tree, at byte ${this.#consumed}`,
            );
          }
          return;
        }
        if (kind === 'leaf') {
          if (input.size < len) return;
          out ??= new Uint8Array(input.size);
          input.takeInto(out, filled, len);
          this.#consumed += len;
          verifier.leaf(out.subarray(filled, filled + len));
          filled += len;
          continue;
        }
        if (kind === 'parent' && verifier.wholeSubtree) {
          const parentBytes = outboardSubtreeLen(len, leafBytes);
          const encodedBytes = outboard ? len : len + parentBytes;
          let whole = input.size >= encodedBytes;
          if (whole && outboard) {
            // An outboard that ends inside the subtree is read node by node, up to where it ends.
            const has = outboard.has(parentBytes);
            whole = has instanceof Promise ? await has : has;
          }
          if (whole) {
            out ??= new Uint8Array(input.size);
            const content = out.subarray(filled, filled + len);
            let parents: Uint8Array;
            if (outboard) {
              const p = outboard.read(parentBytes);
              parents = p instanceof Promise ? await p : p;
              input.takeInto(content, 0, len);
            } else {
              // Separate the interleaved parents and content (Bao spec, "Combined Encoding Format").
              if (this.#parents.length < parentBytes) this.#parents = new Uint8Array(parentBytes);
              parents = this.#parents.subarray(0, parentBytes);
              let p = 0;
              let c = 0;
              visitSubtree(
                len,
                leafBytes,
                () => input.takeInto(parents, (p += PARENT_LEN) - PARENT_LEN, PARENT_LEN),
                (n) => input.takeInto(content, (c += n) - n, n),
              );
            }
            this.#consumed += encodedBytes;
            verifier.subtree(parents, content, verified);
            continue;
          }
          // With batchLog, wait for the rest of a small subtree rather than take it node by node.
          if (len <= this.#batchBytes && !final) return;
        }
        // The header or a single parent: from the outboard, or from the combined encoding.
        const size = kind === 'header' ? HEADER_LEN : PARENT_LEN;
        let bytes: Uint8Array | Promise<Uint8Array> | undefined = outboard ? outboard.read(size) : input.take(size);
        if (bytes instanceof Promise) bytes = await bytes;
        if (bytes === undefined) return;
        if (!outboard) this.#consumed += size;
        if (kind === 'header') verifier.header(bytes);
        else verifier.parent(bytes);
      }
    } finally {
      if (filled > 0) emit(out!.subarray(0, filled));
    }
  }
}
