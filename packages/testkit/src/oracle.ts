import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type OracleRequest = {
  data: Uint8Array;
  key?: Uint8Array;
  context?: string;
  /** Output bytes wanted (the XOF length). */
  length: number;
  /** Output position to start from. */
  seek?: bigint | number;
};

const script = join(dirname(fileURLToPath(import.meta.url)), 'oracle.py');
const python = process.env.PYTHON ?? 'python3';

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

/** Hex outputs of the official implementation for a batch of requests (one process per batch). */
export function oracle(requests: readonly OracleRequest[]): string[] {
  // The seek goes as a decimal string: it can exceed 2^53.
  const json = JSON.stringify(
    requests.map((r) => ({
      len: r.data.length,
      key: r.key ? hex(r.key) : null,
      context: r.context ?? null,
      length: r.length,
      seek: String(r.seek ?? 0),
    })),
  );
  const dir = mkdtempSync(join(tmpdir(), 'blake3-oracle-'));
  try {
    const file = join(dir, 'requests.bin');
    const total = requests.reduce((n, r) => n + r.data.length, 0);
    const buf = Buffer.alloc(Buffer.byteLength(json) + 1 + total);
    let pos = buf.write(json + '\n');
    for (const r of requests) {
      buf.set(r.data, pos);
      pos += r.data.length;
    }
    writeFileSync(file, buf);
    const res = spawnSync(python, [script, file], { encoding: 'utf8', maxBuffer: 1 << 28 });
    if (res.status !== 0) {
      const missing = /No module named .blake3/.test(res.stderr ?? '');
      throw new Error(
        `the reference oracle failed (${python} ${script}): ${res.error?.message ?? res.stderr}` +
          (missing ? '\nInstall it with: python3 -m pip install blake3' : ''),
      );
    }
    // One line per request; an empty output is an empty line, so only the final newline goes.
    const lines = res.stdout.split('\n').slice(0, -1);
    if (lines.length !== requests.length)
      throw new Error(`the reference oracle gave ${lines.length} outputs for ${requests.length} requests`);
    return lines;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
