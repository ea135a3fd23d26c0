// Where the pinned pnpm lives and how to run it: the repo installs its own copy so a fresh
// machine with only Node and npm needs nothing global.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PNPM_VERSION = '12.21.0';
export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const toolsDir = join(root, '.tools');
export const toolsBin = join(toolsDir, 'node_modules', '.bin');
export const pnpmBin = join(toolsBin, 'pnpm');

export function env() {
  return { ...process.env, PATH: `${toolsBin}:${process.env.PATH}`, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' };
}

export function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, env: env(), ...opts });
  if (r.error) throw r.error;
  return r.status ?? 1;
}

export function must(cmd, args, opts) {
  const status = run(cmd, args, opts);
  if (status !== 0) {
    console.error(`\n${cmd} ${args.join(' ')} failed with exit status ${status}`);
    process.exit(status);
  }
}

export function hasPinnedPnpm() {
  if (!existsSync(pnpmBin)) return false;
  const r = spawnSync(pnpmBin, ['--version'], { encoding: 'utf8', env: env() });
  return r.status === 0 && r.stdout.trim() === PNPM_VERSION;
}
