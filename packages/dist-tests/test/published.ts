// The packages published to npm, and how to pack them as `pnpm publish` would.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PUBLISHED = ['core', 'worker', 'stream', 'workbox', 'cli', 'upload', 'download', 'native'] as const;
export type Published = (typeof PUBLISHED)[number];

const root = fileURLToPath(new URL('../../../', import.meta.url));
const pnpm = join(root, 'scripts/pnpm.mjs');

/** The tarball `pnpm pack` makes of each package (workspace: ranges replaced by versions). */
export function packAll(): Map<Published, Uint8Array> {
  const dir = mkdtempSync(join(tmpdir(), 'blake3-pack-'));
  try {
    const tarballs = new Map<Published, Uint8Array>();
    for (const name of PUBLISHED) {
      const out = execFileSync(process.execPath, [pnpm, 'pack', '--pack-destination', dir], {
        cwd: join(root, 'packages', name),
        encoding: 'utf8',
      });
      const file = out.trim().split('\n').at(-1)!;
      tarballs.set(name, new Uint8Array(readFileSync(file)));
    }
    return tarballs;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
