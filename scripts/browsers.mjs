#!/usr/bin/env node
// Installs the three browser engines the e2e tests drive, from Debian's own packages: the
// machines reach package registries only, so Playwright's browser downloads cannot work here.
// Without root or apt it prints what to install and fails, so no engine is ever skipped unseen.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

import { BROWSER_PATHS } from './browser-paths.mjs';

/** Debian packages per engine, and the executables that prove they are installed. */
const ENGINES = [
  { engine: 'chromium', packages: ['chromium'], files: [BROWSER_PATHS.chromium] },
  { engine: 'firefox', packages: ['firefox-esr'], files: [BROWSER_PATHS.firefox] },
  {
    engine: 'webkit',
    packages: ['webkit2gtk-driver', 'xvfb', 'xauth'],
    files: [BROWSER_PATHS.webkitDriver, BROWSER_PATHS.miniBrowser, BROWSER_PATHS.xvfb, BROWSER_PATHS.xauth],
  },
];

function isDebian() {
  try {
    return /^ID(_LIKE)?=.*\bdebian\b/m.test(readFileSync('/etc/os-release', 'utf8'));
  } catch {
    return false;
  }
}

function apt(args) {
  const r = spawnSync('apt-get', args, {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  return r.status === 0;
}

export function ensureBrowsers() {
  const missing = ENGINES.filter((e) => e.files.some((f) => !existsSync(f)));
  if (missing.length === 0) return;

  const packages = missing.flatMap((e) => e.packages);
  const engines = missing.map((e) => e.engine).join(', ');
  const canInstall = process.getuid?.() === 0 && isDebian();
  if (canInstall) {
    console.log(`installing browser engines (${engines}): apt-get install ${packages.join(' ')}`);
    if (apt(['update']) && apt(['install', '-y', ...packages])) {
      const still = missing.filter((e) => e.files.some((f) => !existsSync(f)));
      if (still.length === 0) return;
      console.error(
        `after apt-get install, still missing: ${still.flatMap((e) => e.files.filter((f) => !existsSync(f))).join(', ')}`,
      );
    }
  }
  console.error(
    `\nThe e2e tests need three browser engines; missing: ${engines}.\n` +
      `Install them (Debian 12, as root):\n\n  apt-get update && apt-get install -y ${packages.join(' ')}\n\n` +
      (canInstall
        ? 'The install above failed.\n'
        : 'This script installs them itself only when run as root on Debian.\n'),
  );
  process.exit(1);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) ensureBrowsers();
