// Redis and the S3 server on free ports of 127.0.0.1, started by the tests that need them and
// stopped after (bootstrap installs both: setup/fleet-services.mjs).
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { redisServerPath, s3ServerPath } from '../setup/fleet-services.mjs';

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function untilListening(port: number, child: ChildProcess, name: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (up) return;
    if (Date.now() > deadline) throw new Error(`${name} did not listen on ${port} within 20 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

export type Service = {
  port: number;
  /** The server's process id (while it runs). */
  readonly pid: number | undefined;
  stop(): Promise<void>;
  restart(): Promise<void>;
};

function service(name: string, start: (port: number) => ChildProcess, port: number): Promise<Service> {
  let child = start(port);
  const s: Service = {
    port,
    get pid() {
      return child.pid;
    },
    stop: () => stop(child),
    async restart() {
      await stop(child);
      child = start(port);
      await untilListening(port, child, name);
    },
  };
  return untilListening(port, child, name).then(() => s);
}

/** A Redis that keeps nothing on disk. */
export async function startRedis(): Promise<Service> {
  const port = await freePort();
  return service(
    'redis-server',
    (p) =>
      spawn(redisServerPath, ['--port', String(p), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
        stdio: 'ignore',
      }),
    port,
  );
}

/** The S3 server, in memory, with the bucket `bucket`. */
export async function startS3(bucket = 'uploads'): Promise<Service & { endpoint: string }> {
  const port = await freePort();
  const s = await service(
    'gofakes3',
    (p) =>
      spawn(s3ServerPath, ['-backend', 'memory', '-host', `127.0.0.1:${p}`, '-initialbucket', bucket, '-quiet'], {
        stdio: 'ignore',
      }),
    port,
  );
  return Object.assign(s, { endpoint: `http://127.0.0.1:${port}` });
}

const instanceScript = fileURLToPath(new URL('./_fleet-instance.ts', import.meta.url));

/** One tus instance process (`_fleet-instance.ts`), started with its environment. */
export type Instance = { name: string; port: number; child: ChildProcess; env: Record<string, string> };

/**
 * Starts an instance on `port` over `redis` and `s3`, `extra` added to its environment; resolves
 * once it listens (within 30 s, else rejects, as it does if the process exits first).
 */
export async function startInstance(
  name: string,
  port: number,
  services: { redis: Service; s3: { endpoint: string } },
  extra: Record<string, string> = {},
): Promise<Instance> {
  const env = {
    INSTANCE: name,
    PORT: String(port),
    REDIS_PORT: String(services.redis.port),
    S3_ENDPOINT: services.s3.endpoint,
    ...extra,
  };
  const child = spawn(process.execPath, ['--import', 'tsx', instanceScript], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`instance ${name} did not start within 30 s`)), 30_000);
    child.stdout!.on('data', (d: Buffer) => {
      if (d.toString().includes('listening')) (clearTimeout(timer), resolve());
    });
    child.once('exit', (code) => reject(new Error(`instance ${name} exited with ${code}`)));
  });
  return { name, port, child, env };
}

/** Kills an instance (SIGKILL) and resolves once it has exited. */
export const killInstance = (instance: Instance): Promise<void> => stop(instance.child);
