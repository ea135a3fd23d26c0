// Go for the tools the tests build from the Go module proxy: found where it is (CI images often
// keep it off PATH), with its module cache and binaries under .tools/go, so a fresh clone builds
// each tool once and every worktree of the machine shares them.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { toolsDir } from './tools.mjs';

export const goRoot = join(toolsDir, 'go');
export const goBin = join(goRoot, 'bin');

/** The `go` command: $GO, else `go` on PATH, else the usual install places; undefined if none runs. */
export function findGo() {
  const candidates = [process.env.GO, 'go', '/usr/local/go/bin/go', '/usr/lib/go/bin/go'];
  if (process.env.HOME)
    candidates.push(join(process.env.HOME, 'go', 'bin', 'go'), join(process.env.HOME, 'sdk', 'go', 'bin', 'go'));
  for (const go of candidates) {
    if (!go || (go.includes('/') && !existsSync(go))) continue;
    if (spawnSync(go, ['version'], { stdio: 'ignore' }).status === 0) return go;
  }
  return undefined;
}

/** The environment Go runs in: GOPATH and GOBIN under .tools/go, a module cache `rm -rf` can clear. */
export function goEnv(env = process.env) {
  return { ...env, GOPATH: goRoot, GOBIN: goBin, GOFLAGS: '-modcacherw', GOTOOLCHAIN: 'local' };
}

/** `findGo()`, or exits naming what to install when there is no Go. */
export function mustFindGo(needs) {
  const go = findGo();
  if (go === undefined) {
    console.error(
      `Go was not found (set GO to the go command): ${needs}; install Go 1.22 or later from https://go.dev/dl`,
    );
    process.exit(1);
  }
  return go;
}
