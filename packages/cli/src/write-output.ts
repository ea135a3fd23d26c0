import { bytesToHex } from '@blake3-web/core';
import type { Writer } from './stdout-writer.js';

/** Output is made and written this much at a time: `-l` of any size runs in flat memory. */
const BLOCK_BYTES = 64 << 10;

/** Where output bytes come from: an OutputReader, or bytes the worker pool returned. */
export type OutputSource = { readInto(out: Uint8Array): void };

/** The pool's bytes as a source read from the start. */
export function bytesSource(bytes: Uint8Array): OutputSource {
  let at = 0;
  return { readInto: (out) => void out.set(bytes.subarray(at, (at += out.length))) };
}

/** Writes the next `length` bytes of `reader`, as hex or raw bytes. */
export function writeOutput(reader: OutputSource, length: bigint, hex: boolean, io: Writer): void {
  const block = new Uint8Array(Number(length < BigInt(BLOCK_BYTES) ? length : BigInt(BLOCK_BYTES)));
  for (let left = length; left > 0n;) {
    const piece = left < BigInt(block.length) ? block.subarray(0, Number(left)) : block;
    reader.readInto(piece);
    io.out(hex ? bytesToHex(piece) : piece);
    left -= BigInt(piece.length);
  }
}
