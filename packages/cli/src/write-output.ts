import { bytesToHex, type OutputReader } from '@blake3-web/core';
import type { Writer } from './stdout-writer.js';

/** Output is made and written this much at a time: `-l` of any size runs in flat memory. */
const BLOCK_BYTES = 64 << 10;

/** Writes `length` bytes of `reader`'s output from its position, as hex or raw bytes. */
export function writeOutput(reader: OutputReader, length: bigint, hex: boolean, io: Writer): void {
  const block = new Uint8Array(Number(length < BigInt(BLOCK_BYTES) ? length : BigInt(BLOCK_BYTES)));
  for (let left = length; left > 0n; ) {
    const piece = left < BigInt(block.length) ? block.subarray(0, Number(left)) : block;
    reader.readInto(piece);
    io.out(hex ? bytesToHex(piece) : piece);
    left -= BigInt(piece.length);
  }
}
