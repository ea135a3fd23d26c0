// The services the fleet tests run the verifying store against, installed by the bootstrap:
// Redis (Debian's redis-server) and an S3 server, gofakes3, a small S3 implementation in Go built
// from the Go module proxy at a pinned version into .tools/go/bin (about a minute of CPU; the
// larger SeaweedFS was not needed for the S3 calls tus makes).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const GOFAKES3_MODULE = 'github.com/johannesboyne/gofakes3/cmd/gofakes3';
export const GOFAKES3_VERSION = 'v1.2.0';
const goRoot = fileURLToPath(new URL('../../../.tools/go', import.meta.url));
/** Where the tests find the S3 server. */
export const s3ServerPath = join(goRoot, 'bin', 'gofakes3');
/** Where the tests find Redis. */
export const redisServerPath =
  ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find(existsSync) ?? 'redis-server';

const goVersionOf = (path) => {
  const r = spawnSync(process.env.GO ?? 'go', ['version', '-m', path], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout : '';
};

/** True when the pinned S3 server is built. */
export function s3ServerIsPinned() {
  return existsSync(s3ServerPath) && goVersionOf(s3ServerPath).includes(`${GOFAKES3_VERSION}`);
}

export function ensureS3Server() {
  if (s3ServerIsPinned()) return;
  const go = process.env.GO ?? (existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : 'go');
  if (spawnSync(go, ['version']).status !== 0) {
    console.error(
      `go was not found (${go}): the fleet tests need ${GOFAKES3_MODULE}@${GOFAKES3_VERSION}; install Go or set GO`,
    );
    process.exit(1);
  }
  mkdirSync(join(goRoot, 'bin'), { recursive: true });
  console.log(`installing the S3 server the fleet tests use: go install ${GOFAKES3_MODULE}@${GOFAKES3_VERSION}`);
  const r = spawnSync(go, ['install', `${GOFAKES3_MODULE}@${GOFAKES3_VERSION}`], {
    stdio: 'inherit',
    env: { ...process.env, GOBIN: join(goRoot, 'bin'), GOFLAGS: '-mod=mod' },
  });
  if (r.status !== 0 || !existsSync(s3ServerPath)) {
    console.error(`could not build ${GOFAKES3_MODULE}@${GOFAKES3_VERSION}`);
    process.exit(1);
  }
}

export function ensureRedis() {
  if (spawnSync(redisServerPath, ['--version']).status === 0) return;
  console.log('installing redis-server (apt) for the fleet tests');
  const apt = (args) =>
    spawnSync('apt-get', args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  apt(['update']);
  if (apt(['install', '-y', 'redis-server']).status !== 0) {
    console.error('could not install redis-server: run apt-get install -y redis-server as root');
    process.exit(1);
  }
  // Debian starts a system Redis on 6379 after the install: the tests start their own on free ports.
}

export function ensureFleetServices() {
  ensureRedis();
  ensureS3Server();
}
