import { BaoEncoder } from '@blake3-web/stream';
import { bytesToHex } from '@blake3-web/core';
import { oracle, Random } from '@blake3-web/testkit';

/** Content, its root from the reference implementation (Python `blake3`), and its outboard. */
export function fixture(size: number, seed: number, chunkGroupLog = 4) {
  const content = new Random(seed).bytes(size);
  const [root] = oracle([{ data: content, length: 32 }]);
  const { hash, outboard } = new BaoEncoder({ chunkGroupLog }).update(content).finalize();
  if (bytesToHex(hash) !== root) throw new Error('the encoder disagrees with the reference');
  return { content, root, outboard };
}

export async function bytesOf(blob: Blob): Promise<Uint8Array> {
  return new Uint8Array(await blob.arrayBuffer());
}
