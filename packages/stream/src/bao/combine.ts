import { aChunk, aUint8Array, describe } from '../_assert.js';
import { ByteQueue } from './_byte-queue.js';
import { concatBytes } from './_concat.js';
import { resolveLeafBytes, type BaoTreeOpts } from './_options.js';
import { HEADER_LEN, outboardSubtreeLen, PARENT_LEN, preOrder, readLengthHeader } from './tree-shape.js';

/** Output pieces of about this size: large enough that per-chunk stream overhead is small. */
const PIECE_BYTES = 64 * 1024;

/**
 * The combined encoding of content that streams, from its outboard: parents from the outboard
 * interleaved with the content in pre-order, byte for byte what `bao encode` writes. With
 * `BaoEncoder` this encodes content of any size with memory for the outboard only: one pass to
 * build the outboard, a second (`blob.stream()` again) to stream the combined encoding.
 *
 * No hashes are checked here, as `bao slice` checks none: the content must be the content the
 * outboard was built from, and only a verifier will tell if it is not. Content that is longer or
 * shorter than the outboard's header says errors the stream with a RangeError.
 *
 * @example
 * ```ts
 * const encoder = new BaoEncoder();
 * await blob.stream().pipeTo(new WritableStream({ write: (c) => void encoder.update(c) }));
 * const { hash, outboard } = encoder.finalize();
 * const encoded = baoCombine(blob.stream(), outboard); // a ReadableStream of the combined encoding
 * ```
 */
export function baoCombine(
  content: ReadableStream<Uint8Array>,
  outboard: Uint8Array,
  opts?: BaoTreeOpts,
): ReadableStream<Uint8Array> {
  if (!(content instanceof ReadableStream))
    throw new TypeError(`content must be a ReadableStream, got ${describe(content)}`);
  outboard = aUint8Array(outboard, 'outboard');
  const leafBytes = resolveLeafBytes(opts);
  const contentLen = readLengthHeader(outboard, (why) => new RangeError(`outboard ${why}`));
  const expected = HEADER_LEN + outboardSubtreeLen(contentLen, leafBytes);
  if (outboard.length !== expected)
    throw new RangeError(`an outboard for ${contentLen} content bytes has ${expected} bytes, got ${outboard.length}`);

  const tree = outboard.slice();
  const walk = preOrder(contentLen, { leafBytes });
  const queue = new ByteQueue();
  const reader = content.getReader();
  let received = 0;
  let treePos = HEADER_LEN;
  let headerSent = false;

  /** Reads content until `n` bytes are queued; false at the end of the content. */
  const fill = async (n: number): Promise<boolean> => {
    while (queue.size < n) {
      const { done, value } = await reader.read();
      if (done) return false;
      const bytes = aChunk(value);
      queue.push(bytes);
      received += bytes.length;
    }
    return true;
  };

  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          await produce(controller);
        } catch (err) {
          await reader.cancel(err).catch(() => {});
          throw err;
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );

  async function produce(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    const pieces: Uint8Array[] = [];
    let size = 0;
    if (!headerSent) {
      headerSent = true;
      pieces.push(tree.subarray(0, HEADER_LEN));
      size += HEADER_LEN;
    }
    while (size < PIECE_BYTES) {
      const step = walk.next();
      if (step.done) {
        // Nothing may follow: the content must be exactly as long as the header says.
        if (await fill(1))
          throw new RangeError(`content is longer than the ${contentLen} bytes its outboard describes`);
        if (size > 0) controller.enqueue(concatBytes(pieces, size));
        controller.close();
        return;
      }
      const node = step.value;
      if (node.kind === 'parent') {
        pieces.push(tree.subarray(treePos, treePos + PARENT_LEN));
        treePos += PARENT_LEN;
        size += PARENT_LEN;
      } else {
        if (!(await fill(node.len)))
          throw new RangeError(`content ended after ${received} bytes; its outboard describes ${contentLen}`);
        const leaf = queue.take(node.len)!;
        pieces.push(leaf);
        size += leaf.length;
      }
    }
    controller.enqueue(concatBytes(pieces, size));
  }
}
