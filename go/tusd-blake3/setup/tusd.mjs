// tusd, the tus reference server, built from the Go module proxy at a pinned version into
// .tools/go/bin (about 70 s on 2 cores, once per machine), and the hook of this module built from
// its source, for the tests that upload to tusd through the hook.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { findGo, goBin, goEnv, mustFindGo } from '../../../scripts/go.mjs';

export const TUSD_VERSION = 'v2.9.1';
export const tusdPath = join(goBin, 'tusd');
const moduleDir = fileURLToPath(new URL('..', import.meta.url));
const install = `go install github.com/tus/tusd/v2/cmd/tusd@${TUSD_VERSION}`;

/**
 * The version of tusd's module the binary was built from (`go install` stamps no version that
 * `tusd -version` prints; Go's build info has it), or undefined without a binary or Go.
 */
function installedVersion() {
  const go = findGo();
  if (go === undefined || !existsSync(tusdPath)) return undefined;
  const r = spawnSync(go, ['version', '-m', tusdPath], { encoding: 'utf8' });
  return r.status === 0 ? /^\s*mod\s+github\.com\/tus\/tusd\/v2\s+(\S+)/m.exec(r.stdout)?.[1] : undefined;
}

export const tusdIsPinned = () => installedVersion() === TUSD_VERSION;

/** For the bootstrap: builds the pinned tusd unless it is there. */
export function ensureTusd() {
  if (tusdIsPinned()) return;
  const go = mustFindGo(`the tusd tests need tusd ${TUSD_VERSION}, built from the Go module proxy`);
  console.log(`building tusd ${TUSD_VERSION} from the Go module proxy (about a minute): ${install}`);
  const r = spawnSync(go, ['install', `github.com/tus/tusd/v2/cmd/tusd@${TUSD_VERSION}`], {
    stdio: 'inherit',
    env: goEnv(),
  });
  if (r.status !== 0 || !tusdIsPinned()) {
    console.error(`could not build tusd ${TUSD_VERSION}; run: GOBIN=.tools/go/bin ${install}`);
    process.exit(1);
  }
}

let hooksDir;

/**
 * A directory holding this module's hook as `pre-finish`, built from the source now (Go's build
 * cache makes it a second or less), once per process.
 */
export function buildHooks() {
  if (hooksDir) return hooksDir;
  const go = findGo();
  if (go === undefined)
    throw new Error('Go was not found (set GO to the go command): the tusd hook is built from source');
  const dir = mkdtempSync(join(tmpdir(), 'tusd-hooks-'));
  const r = spawnSync(go, ['build', '-o', join(dir, 'pre-finish'), '.'], {
    cwd: moduleDir,
    env: goEnv(),
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`go build of the tusd hook failed: ${r.stderr || r.error}`);
  chmodSync(join(dir, 'pre-finish'), 0o755);
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return (hooksDir = dir);
}

/**
 * tusd on a free port of 127.0.0.1, its uploads in a fresh directory, the hook as its pre-finish
 * file hook; `env` reaches the hook (TUSD_BLAKE3_KEY, TUSD_BLAKE3_CONTEXT).
 */
export async function startTusd({ env = {}, args = [] } = {}) {
  if (!tusdIsPinned())
    throw new Error(`tusd ${TUSD_VERSION} is not at ${tusdPath}: run node scripts/bootstrap.mjs --test (${install})`);
  const hooks = buildHooks();
  const directory = mkdtempSync(join(tmpdir(), 'tusd-uploads-'));
  const flags = {
    host: '127.0.0.1',
    port: '0',
    'base-path': '/files/',
    'upload-dir': directory,
    'hooks-dir': hooks,
    'hooks-enabled-events': 'pre-finish',
    'cors-allow-headers': 'Upload-Blake3',
    'cors-expose-headers': 'Upload-Blake3-Verified',
    'show-greeting': 'false',
  };
  const child = spawn(tusdPath, [...Object.entries(flags).map(([name, value]) => `-${name}=${value}`), ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const endpoint = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`tusd did not start within 30 s:\n${log}`)), 30_000);
    const read = (d) => {
      log += d;
      const m = /You can now upload files to: (http:\/\/127\.0\.0\.1:\d+\/files\/)/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`tusd exited (${code}) before it listened:\n${log}`));
    });
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const proxy = await faultyProxy(new URL(endpoint));
  return {
    endpoint: proxy.endpoint,
    directory,
    faults: proxy.faults,
    get drops() {
      return proxy.drops;
    },
    log: () => log,
    async close() {
      await proxy.close();
      if (child.exitCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** The request's headers, the root's as sent: Node joins a repeated header's values into one. */
function forwarded(req) {
  const root = req.headersDistinct['upload-blake3'];
  return root ? { ...req.headers, 'upload-blake3': root } : req.headers;
}

/**
 * A proxy on 127.0.0.1 in front of tusd with the faults the tests set: `dropAfter` drops the
 * connection of the next PATCH once that many of its bytes passed; `flipAt` flips the byte at
 * that offset of the upload on its way to tusd.
 */
async function faultyProxy(target) {
  const faults = {};
  const state = { drops: 0 };
  const server = createServer((req, res) => {
    const upstream = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: forwarded(req) },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    let at = Number(req.headers['upload-offset'] ?? 0);
    let seen = 0;
    const patch = req.method === 'PATCH';
    req.on('data', (chunk) => {
      const bytes = Buffer.from(chunk);
      const flip = faults.flipAt;
      if (patch && flip !== undefined && flip >= at && flip < at + bytes.length) bytes[flip - at] ^= 1;
      at += bytes.length;
      seen += bytes.length;
      if (patch && faults.dropAfter !== undefined && seen >= faults.dropAfter) {
        faults.dropAfter = undefined;
        state.drops++;
        upstream.write(bytes, () => upstream.destroy()); // tusd keeps what reached it
        req.socket.destroy();
        return;
      }
      if (!upstream.write(bytes)) {
        req.pause();
        upstream.once('drain', () => req.resume());
      }
    });
    req.on('end', () => upstream.end());
    req.on('error', () => upstream.destroy());
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${server.address().port}${target.pathname}`,
    faults,
    get drops() {
      return state.drops;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
