import { bytesToHex } from '@blake3-web/core';
import { assertChunk } from '../_chunks.js';
import { IntegrityError } from '../integrity-error.js';
import { ByteQueue } from './_byte-queue.js';
import { gatedPair, type GatedTransformer } from './_gated-pair.js';
import { baoHash, resolveLeafBytes, smallLog, type BaoTreeOpts } from './_options.js';
import { outboardSource, type OutboardSource } from './_outboard-source.js';
import { TreeVerifier } from './_tree-verifier.js';
import { CHUNK_LEN, splitEncodedSubtree } from './tree-shape.js';

export interface BaoVerifyOpts extends BaoTreeOpts {
  /**
   * The outboard encoding (header and parents); the stream then carries the content itself.
   * Without it the stream carries the combined encoding.
   */
  outboard?: Uint8Array | ReadableStream<Uint8Array>;
  /**
   * Verify and release content in aligned subtrees of up to 2^batchLog chunks (default 0: chunk
   * by chunk, or group by group). Each such subtree is hashed in one call, which lets the core
   * hash several chunks at once; every parent is still checked. The cost is latency and memory:
   * up to 2^batchLog chunks are held before any of them is released.
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
    const batchBytes = CHUNK_LEN * 2 ** smallLog(opts.batchLog, 'opts.batchLog', 20);
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
  readonly #leafBytes: number;
  readonly #verifier: TreeVerifier;
  readonly #outboard: OutboardSource | undefined;
  readonly #input = new ByteQueue();
  /** Encoded bytes consumed, for error messages. */
  #consumed = 0;

  constructor(hash: Uint8Array, leafBytes: number, batchBytes: number, outboard: OutboardSource | undefined) {
    this.#hash = hash;
    this.#leafBytes = leafBytes;
    this.#verifier = new TreeVerifier(hash, { leafBytes, batchBytes });
    this.#outboard = outboard;
  }

  async write(chunk: Uint8Array, emit: (out: Uint8Array) => void): Promise<void> {
    assertChunk(chunk);
    this.#input.push(chunk);
    try {
      await this.#run(emit);
    } finally {
      this.#input.detach();
    }
  }

  async close(emit: (out: Uint8Array) => void): Promise<void> {
    await this.#run(emit);
    if (this.#verifier.need.kind !== 'done') {
      const what = this.#outboard ? 'content' : 'Bao encoding';
      throw new IntegrityError(bytesToHex(this.#hash), '', `the ${what} ended early: ${this.#input.size} bytes left over after byte ${this.#consumed}, not enough for the next node`);
    }
    await this.#outboard?.finish();
  }

  stop(reason: unknown): void {
    this.#outboard?.cancel(reason);
  }

  /**
   * Verifies every node the queued bytes complete. Verified content is copied into one output
   * per write, released even when a later node in the same write fails.
   */
  async #run(emit: (out: Uint8Array) => void): Promise<void> {
    const verifier = this.#verifier;
    const input = this.#input;
    const outboard = this.#outboard;
    // Content released by this write is at most what is queued now.
    let out: Uint8Array | undefined;
    let filled = 0;
    try {
      for (;;) {
        const need = verifier.need;
        if (need.kind === 'done') {
          if (input.size > 0) {
            const what = outboard ? 'content' : 'Bao encoding';
            throw new IntegrityError(bytesToHex(this.#hash), '', `the ${what} has ${input.size} bytes after the end of its tree, at byte ${this.#consumed}`);
          }
          return;
        }
        if (need.kind === 'header' || need.kind === 'parent') {
          let bytes: Uint8Array | Promise<Uint8Array> | undefined = outboard ? outboard.read(need.bytes) : input.take(need.bytes);
          if (bytes instanceof Promise) bytes = await bytes;
          if (bytes === undefined) return;
          if (!outboard) this.#consumed += need.bytes;
          if (need.kind === 'header') verifier.header(bytes);
          else verifier.parent(bytes);
          continue;
        }
        // Content: a leaf, or a batch whose parents come first (interleaved when combined).
        const encodedBytes = outboard ? need.bytes : need.bytes + need.parents;
        if (input.size < encodedBytes) return;
        out ??= new Uint8Array(input.size);
        const dest = out.subarray(filled, filled + need.bytes);
        let parents: Uint8Array | undefined;
        if (need.parents === 0) input.takeInto(dest, 0, need.bytes);
        else if (outboard) {
          let p = outboard.read(need.parents);
          if (p instanceof Promise) p = await p;
          parents = p;
          input.takeInto(dest, 0, need.bytes);
        } else {
          const split = splitEncodedSubtree(input.take(encodedBytes)!, need.bytes, this.#leafBytes);
          parents = split.parents;
          dest.set(split.content);
        }
        this.#consumed += encodedBytes;
        verifier.content(dest, parents);
        filled += need.bytes;
      }
    } finally {
      if (filled > 0) emit(out!.subarray(0, filled));
    }
  }
}
