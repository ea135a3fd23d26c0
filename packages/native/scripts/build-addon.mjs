#!/usr/bin/env node
// Builds the addon for this machine: `cargo build --release` of crate/, its library copied to
// `blake3-web-native.<platform>.node` (napi-rs's name, which src/_addon.ts loads). The target
// dir stays in crate/target, so a rebuild compiles only what changed.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = fileURLToPath(new URL('..', import.meta.url));
const crate = join(pkg, 'crate');
const cargo = process.env.CARGO ?? 'cargo';

if (spawnSync(cargo, ['--version']).status !== 0) {
  const message = `cargo was not found (${cargo}): @blake3-web/native needs Rust to build its addon (https://rustup.rs, or set CARGO)`;
  // Outside CI a machine without Rust still builds the rest; the upload store then hashes with WASM.
  if (!process.env.CI) {
    console.warn(`${message}; the addon is not built`);
    process.exit(0);
  }
  console.error(message);
  process.exit(1);
}

const r = spawnSync(cargo, ['build', '--release', '--locked', '--manifest-path', join(crate, 'Cargo.toml')], {
  stdio: 'inherit',
});
if (r.status !== 0) process.exit(r.status ?? 1);

const { platformName } = await import('../dist/_addon.js');
const lib =
  {
    darwin: 'libblake3_web_native.dylib',
    win32: 'blake3_web_native.dll',
  }[process.platform] ?? 'libblake3_web_native.so';
const built = join(crate, 'target', 'release', lib);
if (!existsSync(built)) {
  console.error(`cargo built no ${built}`);
  process.exit(1);
}
const dest = join(pkg, `blake3-web-native.${platformName()}.node`);
copyFileSync(built, dest);
console.log(`built ${dest}`);
