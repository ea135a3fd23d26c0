// Installs the reference the CLI's differential tests run side by side with b3web: b3sum from
// crates.io, pinned, built once into .tools/cargo (a minute or two).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const B3SUM_VERSION = '1.8.2';
const root = fileURLToPath(new URL('../../..', import.meta.url));
const cargoRoot = join(root, '.tools', 'cargo');
/** Where the tests find b3sum. */
export const b3sumPath = join(cargoRoot, 'bin', 'b3sum');

export function installedB3sumVersion() {
  const r = spawnSync(b3sumPath, ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

export function ensureB3sum() {
  if (installedB3sumVersion() === `b3sum ${B3SUM_VERSION}`) return;
  const cargo = process.env.CARGO ?? 'cargo';
  if (spawnSync(cargo, ['--version']).status !== 0) {
    console.error(
      `cargo was not found (${cargo}): the CLI's differential tests need b3sum ${B3SUM_VERSION}, built from crates.io with cargo; install Rust (https://rustup.rs) or set CARGO`,
    );
    process.exit(1);
  }
  console.log(
    `installing the reference CLI: cargo install b3sum --version ${B3SUM_VERSION} --locked --root .tools/cargo`,
  );
  const r = spawnSync(cargo, ['install', 'b3sum', '--version', B3SUM_VERSION, '--locked', '--root', cargoRoot], {
    stdio: 'inherit',
  });
  if (r.status !== 0 || installedB3sumVersion() !== `b3sum ${B3SUM_VERSION}`) {
    console.error(
      `could not install b3sum ${B3SUM_VERSION}; run: cargo install b3sum --version ${B3SUM_VERSION} --locked --root .tools/cargo`,
    );
    process.exit(1);
  }
}
