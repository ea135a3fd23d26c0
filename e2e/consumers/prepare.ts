// Installs and builds the example apps the way a user does: the packages packed with `pnpm pack`,
// each app copied to a directory of its own outside the workspace and installed with npm from
// those tarballs (npm's cache makes a repeat install take seconds), then built with its bundler.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { repoRoot } from '../../servers/fixture-server.ts';
import { installs, type Install, type ServerApp } from './apps.ts';

/**
 * The published packages the apps need: the worker, the upload package, the download package,
 * the CLI (the download example publishes its file with b3web-publish), the native addon (the
 * upload server's hasher) and what they depend on.
 */
const PACKAGES = ['core', 'worker', 'stream', 'upload', 'download', 'cli', 'native'];

/** Packages only a Node server uses: installed where the install says `server`, not in the browser apps. */
const SERVER_PACKAGES = ['@blake3-web/native'];

/** Where pack() leaves the tarballs as `pnpm pack` wrote them (the specs look inside). */
export const packStaging = join(repoRoot, 'test-results', 'consumers', 'pack');

/** Apps live outside the repo so nothing from the workspace resolves; one tree per checkout. */
export const appsRoot = join(
  tmpdir(),
  `blake3-web-examples-${createHash('sha256').update(repoRoot).digest('hex').slice(0, 8)}`,
);

export function appDir(app: Pick<ServerApp, 'install'>): string {
  return join(appsRoot, app.install);
}

type Output = { status: number; output: string };

/** The environment of every install, build and server: no update checks, no Next.js telemetry. */
export const appEnv = { ...process.env, npm_config_update_notifier: 'false', NEXT_TELEMETRY_DISABLED: '1' };

/** Runs a command, keeping its output for the error message when it fails. */
export function exec(cmd: string, args: string[], cwd: string): Promise<Output> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env: appEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', (e) => resolve({ status: 127, output: String(e) }));
    child.on('close', (status) => resolve({ status: status ?? 1, output }));
  });
}

async function must(what: string, cmd: string, args: string[], cwd: string): Promise<void> {
  const { status, output } = await exec(cmd, args, cwd);
  if (status !== 0) throw new Error(`${what} failed (exit status ${status}):\n${output.slice(-4000)}`);
}

/** Packs the packages; the directory is named for their contents, so npm sees every change. */
export async function pack(): Promise<Map<string, string>> {
  rmSync(packStaging, { recursive: true, force: true });
  mkdirSync(packStaging, { recursive: true });
  const pnpm = join(repoRoot, 'scripts', 'pnpm.mjs');
  await Promise.all(
    PACKAGES.map((p) =>
      must(
        `pnpm pack of packages/${p}`,
        process.execPath,
        [pnpm, 'pack', '--pack-destination', packStaging],
        join(repoRoot, 'packages', p),
      ),
    ),
  );
  const files = readdirSync(packStaging)
    .filter((f) => f.endsWith('.tgz'))
    .sort();
  if (files.length !== PACKAGES.length) throw new Error(`pnpm pack made ${files.join(', ')}`);
  const hash = createHash('sha256');
  for (const f of files) hash.update(readFileSync(join(packStaging, f)));
  const dir = join(appsRoot, 'tarballs', hash.digest('hex').slice(0, 16));
  mkdirSync(dir, { recursive: true });
  const tarballs = new Map<string, string>();
  for (const f of files) {
    cpSync(join(packStaging, f), join(dir, f));
    tarballs.set(`@blake3-web/${f.replace(/^blake3-web-/, '').replace(/-\d+\.\d+\.\d+\.tgz$/, '')}`, join(dir, f));
  }
  return tarballs;
}

/** Copies an example over its install (node_modules stays) and installs the tarballs with npm. */
export async function install(target: Install, tarballs: Map<string, string>): Promise<void> {
  const dir = join(appsRoot, target.key);
  mkdirSync(dir, { recursive: true });
  for (const entry of readdirSync(dir))
    if (entry !== 'node_modules' && entry !== 'package-lock.json')
      rmSync(join(dir, entry), { recursive: true, force: true });
  cpSync(join(repoRoot, 'examples', target.dir), dir, { recursive: true });
  const pkgFile = join(dir, 'package.json');
  const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as { devDependencies?: Record<string, string> };
  if (target.devDependencies) pkg.devDependencies = { ...pkg.devDependencies, ...target.devDependencies };
  writeFileSync(pkgFile, `${JSON.stringify(pkg, null, 2)}\n`);
  const wanted = [...tarballs].filter(([name]) => target.server === true || !SERVER_PACKAGES.includes(name));
  // `npm install <tarball>...` as a user runs it; it records them in package.json.
  await must(
    `npm install in ${dir}`,
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...wanted.map(([, file]) => file)],
    dir,
  );
}

/** `npm run build`, where the app has a build script; `out` is the directory the build writes. */
export async function build(app: ServerApp, out = 'dist'): Promise<void> {
  const dir = appDir(app);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  if (pkg.scripts?.build === undefined) return;
  rmSync(join(dir, out), { recursive: true, force: true });
  await must(`npm run build of ${app.name}`, 'npm', ['run', 'build'], dir);
  if (!existsSync(join(dir, out))) throw new Error(`npm run build of ${app.name} wrote no ${out}/`);
}

/** Runs the functions at most `limit` at a time; rejects with every failure. */
export async function inParallel<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  const errors: unknown[] = [];
  await Promise.all(
    Array.from({ length: Math.min(limit, queue.length) }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift())
        await fn(item).catch((e: unknown) => errors.push(e));
    }),
  );
  if (errors.length > 0)
    throw new AggregateError(errors, errors.map((e) => (e instanceof Error ? e.message : String(e))).join('\n\n'));
}

export { installs };
