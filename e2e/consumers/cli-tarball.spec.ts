// The CLI's README block as a user runs it: `npx b3web` from the packed tarball, installed into a
// fresh app (the snippets example's install), in a directory of files; each line's output must
// be the official implementation's (packages/testkit's oracle). No browser.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { oracle, paint } from '@blake3-web/testkit';
import { expect, test } from '@playwright/test';

import { repoRoot } from '../../servers/fixture-server.ts';
import { SNIPPET_APPS } from './apps.ts';
import { appDir, appEnv } from './prepare.ts';

/** The README's first `sh` block: one b3web command a line, its arguments as a shell splits them. */
function readmeCommands(): string[][] {
  const readme = readFileSync(join(repoRoot, 'packages/cli/README.md'), 'utf8');
  const block = /```sh\n([\s\S]*?)```/.exec(readme)![1];
  return block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '')
    .map((line) => Array.from(line.matchAll(/"([^"]*)"|(\S+)/g), (m) => m[1] ?? m[2]));
}

test('b3web from the packed tarball: the README block, line by line, gives the reference bytes', () => {
  const dir = join(appDir(SNIPPET_APPS[0]), 'cli-files');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  const iso = paint(1024 * 1024 + 4321);
  const material = paint(5000);
  writeFileSync(join(dir, 'big.iso'), iso);
  writeFileSync(join(dir, 'key-material'), material);
  const b3web = (args: string[]) => {
    // --no: only the b3web the app installed, never one fetched from the registry; after --,
    // npm takes no flag of b3web's (--check) for its own.
    const r = spawnSync('npx', ['--no', '--', ...args], { cwd: dir, env: appEnv, encoding: 'utf8', timeout: 120_000 });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };

  const [hash, keyOut] = oracle([
    { data: iso, length: 32 },
    { data: material, context: 'app 2026 v1', length: 64 },
  ]);
  const commands = readmeCommands();
  expect(commands).toEqual([
    ['b3web', 'big.iso'],
    ['b3web', '--check', 'SUMS', '--quiet'],
    ['b3web', '--derive-key', 'app 2026 v1', '--length', '64', '--no-names', 'key-material'],
  ]);

  const sums = b3web(commands[0]);
  expect(sums).toEqual({ status: 0, stdout: `${hash}  big.iso\n`, stderr: '' });
  writeFileSync(join(dir, 'SUMS'), sums.stdout);
  expect(b3web(commands[1])).toEqual({ status: 0, stdout: '', stderr: '' });
  expect(b3web(commands[2])).toEqual({ status: 0, stdout: `${keyOut}\n`, stderr: '' });

  // The check fails closed once a byte of the file changes.
  iso[iso.length >> 1] ^= 1;
  writeFileSync(join(dir, 'big.iso'), iso);
  const failed = b3web(commands[1]);
  expect(failed.status).toBe(1);
  expect(failed.stdout).toBe('big.iso: FAILED\n');
});
