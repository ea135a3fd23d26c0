// `npm run demo:fleet`: the demo with its tus server as a fleet, in one command. Redis on a free
// port (nothing saved), two tus instances (fleet-instance.ts) sharing an upload directory and
// that Redis, a round-robin proxy in front of them, and the built demo served by Vite's preview
// with /files/ sent to the proxy (BLAKE3_DEMO_TUS). Ctrl-C stops everything.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { createServer as createNetServer, connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureRedis, redisServerPath } from '../packages/upload/setup/fleet-services.mjs';

const INSTANCES = 2;
const here = fileURLToPath(new URL('.', import.meta.url));
const children: ChildProcess[] = [];
const stopAll = () => children.forEach((c) => c.kill('SIGTERM'));
process.on('SIGINT', () => (stopAll(), process.exit(130)));
process.on('SIGTERM', () => (stopAll(), process.exit(143)));
process.on('exit', stopAll);

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function listening(port: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nothing listens on ${port}`);
}

ensureRedis();
const redisPort = await freePort();
children.push(
  spawn(redisServerPath, ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  }),
);
await listening(redisPort);

const directory = join(tmpdir(), 'blake3-web-demo-fleet-uploads');
mkdirSync(directory, { recursive: true });
const ports = await Promise.all(
  Array.from({ length: INSTANCES }, async (_, i) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(here, 'fleet-instance.ts')], {
      env: { ...process.env, INSTANCE: `instance ${i + 1}`, REDIS_PORT: String(redisPort), UPLOADS_DIR: directory },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    return new Promise<number>((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => {
        const m = /listening (\d+)/.exec(d.toString());
        if (m) resolve(Number(m[1]));
      });
      child.once('exit', (code) => reject(new Error(`instance ${i + 1} exited with ${code}`)));
    });
  }),
);

let next = 0;
const proxy = createServer((req, res) => {
  const port = ports[next++ % ports.length];
  const upstream = request(
    { host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers },
    (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    },
  );
  upstream.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end('instance unreachable\n')));
  req.pipe(upstream);
});
await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
const tus = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
console.log(`tus fleet: ${INSTANCES} instances on ${ports.join(', ')} behind ${tus}, Redis on ${redisPort}`);

const vite = spawn(
  process.execPath,
  // Host and port (PORT, else 5173) come from the demo's vite.config.ts.
  [join(here, '../demo/node_modules/vite/bin/vite.js'), 'preview'],
  {
    cwd: join(here, '../demo'),
    env: { ...process.env, BLAKE3_DEMO_TUS: tus },
    stdio: 'inherit',
  },
);
children.push(vite);
vite.once('exit', (code) => process.exit(code ?? 1));
