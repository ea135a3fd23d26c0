// Installs the reference implementation the differential tests compare against: the official
// `blake3` Python package (Rust bindings), pinned.
import { spawnSync } from 'node:child_process';

const VERSION = '1.0.11';
const python = process.env.PYTHON ?? 'python3';

function has() {
  const r = spawnSync(python, ['-c', `import blake3, sys; sys.exit(0 if blake3.__version__ == "${VERSION}" else 1)`]);
  return r.status === 0;
}

export function ensureOracle() {
  if (has()) return;
  console.log(`installing the reference oracle: ${python} -m pip install blake3==${VERSION}`);
  const args = ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', `blake3==${VERSION}`];
  let r = spawnSync(python, args, { stdio: 'inherit' });
  // Debian's system Python refuses global installs (PEP 668); a user install is what it allows.
  if (r.status !== 0) r = spawnSync(python, [...args, '--user', '--break-system-packages'], { stdio: 'inherit' });
  if (r.status !== 0 || !has()) {
    console.error(
      `could not install the reference oracle; install it with: ${python} -m pip install blake3==${VERSION}`,
    );
    process.exit(1);
  }
}
