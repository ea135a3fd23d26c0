// What proving a whole outboard against its root costs (`proveOutboard`: the leaves' values
// merged up to the root, then every other parent compared), for a file of `--gib` GiB (default
// 2) with 1 KiB leaves (`bao encode --outboard`, what baoRangeHandler reads) and 16 KiB groups
// (what download() reads). The outboard is built from random leaf values, not from content:
// a true tree of that shape, without hashing gigabytes first.
//   node --import tsx bench/prove-outboard.ts [--gib=2] [--rounds=5]
import { ready } from '@blake3-web/core';
import {
  HEADER_LEN,
  leafCount,
  outboardSubtreeLen,
  proveOutboard,
  rootHash,
  treeLevels,
  writeHeader,
  writePreOrder,
} from '@blake3-web/stream/_internal';
import { randomFillSync } from 'node:crypto';

const arg = (name: string, fallback: number) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const size = arg('gib', 2) * 2 ** 30;
const rounds = arg('rounds', 5);

/** An outboard of `size` bytes of content in leaves of `leafBytes`, and the root it proves. */
function syntheticOutboard(leafBytes: number): { outboard: Uint8Array; root: Uint8Array } {
  const count = leafCount(size, leafBytes);
  const leaves = new Uint8Array(32 * count);
  for (let at = 0; at < leaves.length; at += 65536) randomFillSync(leaves.subarray(at, at + 65536));
  const levels = treeLevels(leaves, count);
  const outboard = new Uint8Array(HEADER_LEN + outboardSubtreeLen(size, leafBytes));
  writeHeader(outboard, size);
  writePreOrder(levels, count, outboard, HEADER_LEN, undefined, leafBytes);
  return { outboard, root: rootHash(levels) };
}

await ready();
for (const leafBytes of [1024, 16384]) {
  const { outboard, root } = syntheticOutboard(leafBytes);
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    proveOutboard(outboard, root, leafBytes, (why) => new Error(why));
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const mib = (outboard.length / 2 ** 20).toFixed(1);
  console.log(
    `${(size / 2 ** 30).toFixed(2)} GiB in ${leafBytes / 1024} KiB leaves: a ${mib} MiB outboard proven in ` +
      `${times[times.length >> 1]!.toFixed(1)} ms (median of ${rounds}; min ${times[0]!.toFixed(1)} ms), ` +
      `${leafCount(size, leafBytes) - 1} parents`,
  );
}
