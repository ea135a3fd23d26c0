// Runs a Worker in workerd, the Workers runtime from npm, as a user's Worker is deployed: bundled
// by esbuild, with @blake3-web/core/kernel.wasm resolved through the package's exports and
// embedded as a Wasm module. Each named service is the same Worker in its own isolate, with its
// name in the SUPPLY binding.
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = fileURLToPath(new URL('.', import.meta.url));
const workerd = fileURLToPath(new URL('../../node_modules/.bin/workerd', import.meta.url));

export type Workerd<S extends string> = {
  readonly url: Record<S, string>;
  readonly pid: number;
  stop(): Promise<void>;
};
/** A file, or module text that resolves imports from this package. */
export type WorkerSource = { readonly file: string } | { readonly contents: string };

/** Bundles the Worker into `dir` as worker.js and kernel.wasm; `core`, if given, is the file `@blake3-web/core` resolves to. */
async function bundle(source: WorkerSource, dir: string, core?: string): Promise<void> {
  await build({
    ...('file' in source
      ? { entryPoints: [source.file] }
      : { stdin: { contents: source.contents, resolveDir: join(here, '../..'), sourcefile: 'worker.js' } }),
    outfile: join(dir, 'worker.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['workerd', 'worker'],
    logLevel: 'silent',
    plugins: [
      {
        name: 'core-entry',
        setup(b) {
          if (core) b.onResolve({ filter: /^@blake3-web\/core$/ }, () => ({ path: core }));
        },
      },
      {
        // What wrangler does with a .wasm import: the file becomes a module of the Worker.
        name: 'wasm-module',
        setup(b) {
          b.onResolve({ filter: /\.wasm$/ }, async (args) => {
            if (args.pluginData === 'wasm') return undefined;
            const resolved = await b.resolve(args.path, {
              kind: args.kind,
              resolveDir: args.resolveDir,
              pluginData: 'wasm',
            });
            if (resolved.errors.length > 0) return { errors: resolved.errors };
            copyFileSync(resolved.path, join(dir, 'kernel.wasm'));
            return { path: './kernel.wasm', external: true };
          });
        },
      },
    ],
  });
}

const config = (services: readonly string[]) => `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [${services
    .map(
      (s) => `(name = "${s}", worker = (
    modules = [(name = "worker.js", esModule = embed "worker.js"), (name = "kernel.wasm", wasm = embed "kernel.wasm")],
    compatibilityDate = "2026-11-01",
    bindings = [(name = "SUPPLY", text = "${s}")],
  ))`,
    )
    .join(', ')}],
  sockets = [${services.map((s) => `(name = "${s}", http = (), service = "${s}")`).join(', ')}],
);
`;

/** A listening socket on a free port of 127.0.0.1, handed to workerd as a file descriptor (no port race). */
function listen(): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

const fdOf = (server: Server) => (server as unknown as { _handle: { fd: number } })._handle.fd;

/** The Worker from `source` served as each of `services`, on free ports of 127.0.0.1 (`core`: see bundle). */
export async function startWorkerd<S extends string>(
  source: WorkerSource,
  services: readonly S[],
  core?: string,
): Promise<Workerd<S>> {
  const dir = mkdtempSync(join(tmpdir(), 'blake3-workerd-'));
  let child: ChildProcess | undefined;
  const servers: Server[] = [];
  try {
    await bundle(source, dir, core);
    writeFileSync(join(dir, 'config.capnp'), config(services));
    for (const _ of services) servers.push(await listen());
    const url = Object.fromEntries(
      services.map((s, i) => [s, `http://127.0.0.1:${(servers[i].address() as { port: number }).port}`]),
    ) as Record<S, string>;
    // The sockets become fds 3, 4, ... of workerd.
    const args = ['serve', 'config.capnp', ...services.map((s, i) => `--socket-fd=${s}=${3 + i}`)];
    child = spawn(workerd, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe', ...servers.map(fdOf)] });
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const exited = new Promise<never>((_, reject) =>
      child!.once('exit', (code) => reject(new Error(`workerd exited (${code}): ${output}`))),
    );
    // workerd owns the sockets now; the connection is accepted once it serves.
    for (const s of servers) s.close();
    await Promise.race([fetch(url[services[0]]).then((r) => r.text()), exited]);
    const running = child;
    return {
      url,
      pid: running.pid!,
      stop: () =>
        new Promise<void>((resolve) => {
          running.once('exit', () => resolve());
          running.kill();
          rmSync(dir, { recursive: true, force: true });
        }),
    };
  } catch (e) {
    child?.kill();
    for (const s of servers) s.close();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}
