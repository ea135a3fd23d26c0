// Reference CLIs the differential tests run side by side with ours, built from crates.io at a
// pinned version into .tools/cargo (a minute or less each), so every machine tests against the
// same bytes.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const cargoRoot = fileURLToPath(new URL('../../../.tools/cargo', import.meta.url));

/**
 * `bin` of `crate` at `version`: where the tests find it, the version line it prints when it is
 * the pinned one, what it prints now (`undefined` if absent), and `ensure()` for the bootstrap.
 */
export function cargoReference(crate, version, bin) {
  const path = join(cargoRoot, 'bin', bin);
  const installed = () => {
    const r = spawnSync(path, ['--version'], { encoding: 'utf8' });
    return r.status === 0 ? r.stdout.trim() : undefined;
  };
  // b3sum prints "b3sum 1.8.2", bao only "0.13.1".
  const pinned = (line) => line !== undefined && line.split(' ').at(-1) === version;
  const install = `cargo install ${crate} --version ${version} --locked --root .tools/cargo`;
  const ensure = () => {
    if (pinned(installed())) return;
    const cargo = process.env.CARGO ?? 'cargo';
    if (spawnSync(cargo, ['--version']).status !== 0) {
      console.error(
        `cargo was not found (${cargo}): the differential tests need ${bin} ${version}, built from crates.io with cargo; install Rust (https://rustup.rs) or set CARGO`,
      );
      process.exit(1);
    }
    console.log(`installing a reference CLI: ${install}`);
    const r = spawnSync(cargo, ['install', crate, '--version', version, '--locked', '--root', cargoRoot], {
      stdio: 'inherit',
    });
    if (r.status !== 0 || !pinned(installed())) {
      console.error(`could not install ${bin} ${version}; run: ${install}`);
      process.exit(1);
    }
  };
  return { path, installed, isPinned: () => pinned(installed()), ensure, install };
}
